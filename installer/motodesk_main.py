"""Entry point of the frozen build (PyInstaller): the same `motodesk` command as the package's."""

from motodesk.cli import main

if __name__ == "__main__":
    raise SystemExit(main())
