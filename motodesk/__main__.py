from motodesk.cli import main

raise SystemExit(main())
