"""Lei nº 4.883/2017 of Patrocínio-MG as pure Python.

Nothing here imports Qt, SQLAlchemy or any other layer of MotoDesk: plain data in,
verdicts out.  Every verdict carries its article and a pt_BR sentence.
"""
