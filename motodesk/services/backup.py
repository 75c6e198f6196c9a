"""Backups of the whole database (attachments and photos included: they are rows of `blobs`).

One file format for both databases: a zip ("motodesk-backup", format 2) holding

- `manifest.json`: program version, schema revision, kind, row counts, bytes of stored files, the
  audit trail's last entry, the SHA-256 of every other member and a content hash of every table;
- `manifest.sig`: an Ed25519 signature of `manifest.json` by this installation's backup key
  (`motodesk.services.backup_keys`: kept beside the app's data, never inside a backup);
- `schema.json`: the source's schema as its catalogs describe it (`backup_schema`);
- the data: for SQLite a copy made with the online backup API (`database.sqlite3`); for
  PostgreSQL one `tables/<name>.jsonl` per table, rows in a data format of our own (one JSON array
  per row, in the column order of the member's first line). No SQL, no DDL, no dump archive.

Content hash of a table ("motodesk-rows-1"): every row becomes one canonical JSON line (columns in
name order; bytes, dates, times and decimals tagged, see `encode_value`), each line is hashed with
SHA-256, and the table's hash is SHA-256 of the column names and the sorted row digests. It is the
same on SQLite and PostgreSQL for the same data, so it is computed from the live database when
backing up, from the file when it is read back, and from the restored database after a restore.

Backing up checks the source first (SQLite: `PRAGMA integrity_check` and `foreign_key_check` on
the source and on the copy; PostgreSQL: every foreign key has its row, every row is read) and
then reads the written zip back (every member's SHA-256, every table re-read from the file and
hashed) before moving it into place, mode 0600.

A restore goes only into an EMPTY database. It refuses a file whose signature, member hashes,
schema or table hashes do not match. It never runs anything taken from the file: the target's
schema is built by MotoDesk's own migrations and must be identical to the backup's; a SQLite file
is copied only when its schema is exactly what the migrations build; PostgreSQL receives the rows
with COPY … FROM STDIN into the tables its catalog has, under names from that catalog, with the
target's user triggers disabled for the load (`ALTER TABLE … DISABLE TRIGGER USER`, the owner's
right: no superuser needed) and enabled again in the same transaction, so audit rows are loaded
verbatim and no trigger writes new ones for restored data.

This module is the services' one door to backups (what callers import); the work is in four modules:
`backup_format` (members, records, value encoding, table hashes, file helpers), `backup_write`
(`create_backup`), `backup_restore` (`read_manifest`, `restore_backup`, `clean_interrupted`) and
`backup_reminder` (the last backup and the reminder).
"""

from __future__ import annotations

from motodesk.services.backup_format import (
    FORMAT,
    MANIFEST,
    RESTORE_DIR_PREFIX,
    RESTORE_FILE_TAG,
    SCHEMA_MEMBER,
    SIGNATURE,
    SQLITE_MEMBER,
    SUFFIX,
    BackupError,
    BackupRecord,
    BackupResult,
    RestoreError,
    TableHash,
    content_hashes,
)
from motodesk.services.backup_reminder import (
    DEFAULT_REMINDER_DAYS,
    backup_reminder,
    blob_totals,
    last_backup,
    reminder_days,
    set_reminder_days,
)
from motodesk.services.backup_restore import clean_interrupted, read_manifest, restore_backup
from motodesk.services.backup_write import create_backup
from motodesk.services.errors import InvalidInputError

__all__ = [
    "BackupError",
    "BackupRecord",
    "BackupResult",
    "DEFAULT_REMINDER_DAYS",
    "FORMAT",
    "InvalidInputError",
    "MANIFEST",
    "RESTORE_DIR_PREFIX",
    "RESTORE_FILE_TAG",
    "RestoreError",
    "SCHEMA_MEMBER",
    "SIGNATURE",
    "SQLITE_MEMBER",
    "SUFFIX",
    "TableHash",
    "backup_reminder",
    "blob_totals",
    "clean_interrupted",
    "content_hashes",
    "create_backup",
    "last_backup",
    "read_manifest",
    "reminder_days",
    "restore_backup",
    "set_reminder_days",
]
