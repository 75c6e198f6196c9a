"""Spreadsheets in and out: pure functions, plain data in, xlsx files out (and back).

- :mod:`motodesk.exports.xlsx` — the streaming writer every export uses;
- :mod:`motodesk.exports.kinds` — the declared sheets the secretariat receives;
- :mod:`motodesk.exports.importer` — the template and the validated import of the
  secretariat's existing register, in parts: ``import_columns`` (the template's columns),
  ``import_template`` (its writer), ``import_fields`` (one cell into its value), ``import_sheets``
  (the two sheet readers) and ``import_report`` (the lines read and the report);
- :mod:`motodesk.exports.spreadsheet` — the one guarded reader every spreadsheet read goes through.

No Qt and no database here: the services layer feeds rows and persists results.
"""
