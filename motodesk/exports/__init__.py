"""Spreadsheets in and out: pure functions, plain data in, xlsx files out (and back).

- :mod:`motodesk.exports.xlsx` — the streaming writer every export uses;
- :mod:`motodesk.exports.kinds` — the declared sheets the secretariat receives;
- :mod:`motodesk.exports.importer` — the template and the validated import of the
  secretariat's existing register.

No Qt and no database here: the services layer feeds rows and persists results.
"""
