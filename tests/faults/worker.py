"""A second workstation in its own process, driven line by line through stdin/stdout.

    python worker.py URL edit PERSON_ID PHONE   -> loads the person, prints READY, waits for GO,
                                                   saves with the loaded version, prints OK or CONFLICT
    python worker.py URL seed N                 -> seed-demo N people, printing each committed batch
"""

from __future__ import annotations

import sys

from motodesk.models.db import Database
from motodesk.rules.common import Role
from motodesk.services import people
from motodesk.services.context import AppContext, CurrentUser
from motodesk.services.errors import ConflictError


def main() -> int:
    url, action, *rest = sys.argv[1:]
    db = Database.open(url)
    if action == "edit":
        person_id, phone = int(rest[0]), rest[1]
        ctx = AppContext(db, CurrentUser(None, f"estacao-{phone[-1]}", "Estação", Role.CLERK))
        person = people.get_person(ctx, person_id)
        data = people.PersonInput(full_name=person.full_name, cpf=person.cpf, birth_date=person.birth_date,
                                  phone=phone)
        print("READY", flush=True)
        if sys.stdin.readline().strip() != "GO":
            return 2
        try:
            people.save_person(ctx, data, person_id=person_id, expected_version=person.version)
        except ConflictError:
            print("CONFLICT", flush=True)
            return 0
        print("OK", flush=True)
        return 0
    if action == "seed":
        from motodesk.services.demo import seed_demo

        ctx = AppContext(db)
        seed_demo(ctx, int(rest[0]), progress=lambda done, total: print(f"BATCH {done}", flush=True))
        print("DONE", flush=True)
        return 0
    return 2


if __name__ == "__main__":
    raise SystemExit(main())
