"""Printed outputs: badges (CR80 cards) with a signed QR, and the A4 documents.

Pure functions: plain frozen dataclasses in, PDF bytes out (reportlab). No Qt and
no database here; ``motodesk.services`` gathers the data and ``motodesk.ui`` shows
or prints the bytes. Everything on paper is Brazilian Portuguese.
"""
