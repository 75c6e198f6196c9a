"""One module per screen; modules register pages with `motodesk.ui.mainwindow.register_page`."""
