"""Lei nº 4.883/2017 of Patrocínio-MG as pure Python.

Nothing here imports Qt, SQLAlchemy or any other layer of MotoDesk: plain data in,
verdicts out.  Every verdict carries its article and a pt_BR sentence.

* :mod:`~motodesk.rules.common` — services, roles, statuses, verdicts, permit states;
* :mod:`~motodesk.rules.settings` — values the law leaves to a Decree (``LawSettings``);
* :mod:`~motodesk.rules.validators` — CPF, CNH, RENAVAM, NIT, título, CNPJ, plate, VIN;
* :mod:`~motodesk.rules.eligibility` — the applicant and the deputy (Art. 5º, 6º § 1º, 8º, 14 § 2º);
* :mod:`~motodesk.rules.vehicle` — the motorcycle's documents (Art. 3º, 5º § 1º, § 5º, § 8º, 19 § 1º);
* :mod:`~motodesk.rules.checklist` — the inspection per service and the next one due;
* :mod:`~motodesk.rules.quota` — mototáxi permits per 2,000 inhabitants (Art. 10, I);
* :mod:`~motodesk.rules.infractions` — catalogue, classification and penalties (Art. 15, 30–34);
* :mod:`~motodesk.rules.lifecycle` — the permit's state machine and terms (Art. 4º, 6º, 34, 35);
* :mod:`~motodesk.rules.tenders` — the tender that precedes the mototáxi permission (Art. 6º);
* :mod:`~motodesk.rules.deputies` — the deputy while the link lasts (Art. 14; Art. 31, Grupo 4, III);
* :mod:`~motodesk.rules.replacement` — the replacement of the vehicle (Art. 31, Grupo 3, II);
* :mod:`~motodesk.rules.fees` — the fee of each act and whether it was paid (Art. 6º, § 6º);
* :mod:`~motodesk.rules.deadlines` — every deadline the secretariat tracks, and how long an inspection is valid;
* :mod:`~motodesk.rules.accidents` — accident reports and the inspection they require (Art. 31 G2 II, G4 I);
* :mod:`~motodesk.rules.document_gate` — what a certificate, transit authorization or badge vouches for
  on the day it prints (Art. 3º, 4º § 1º, 5º, 6º § 1º, 7º, 31 G4 I);
* :mod:`~motodesk.rules.campaign` — the yearly re-registration campaign: who is called, the counter's slots,
  what a no-show supports (Art. 4º § 1º, 5º § 2º, 30 G1 I–II);
* :mod:`~motodesk.rules.periods` — how years and days are counted (Código Civil, art. 132);
* :mod:`~motodesk.rules.document` — ``docs/rules.md``, generated from all of the above.

``dossier`` (document kinds of the dossier) belongs to the models' engineer.
"""
