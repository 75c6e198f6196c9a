"""Imports every page module so that each registers itself with the main window."""
