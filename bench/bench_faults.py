"""The fault suite, run as in CI, summarised for bench/results.md beside the speed tables.

    .venv/bin/python bench/bench_faults.py

    .venv/bin/python bench/bench_faults.py tests/faults/test_backup_faults.py   # only these tests

Runs the fault and race tests on SQLite and PostgreSQL (PostgreSQL required), prints how many
passed per file with the time each took, the table of what each fault does (bench/faults.md),
then the table of issue 17's guarantees counted from the run: per guarantee, how many faults were
tried (test cases, both databases), refused or survived (passed), and lost (failed or errored).
Exit 1 when any test failed.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SUITE = [
    "tests/faults",
    "tests/services/test_permits_quota_race.py",
    "tests/services/test_stands.py",
    "tests/services/test_roles.py",
    "tests/services/test_foundation.py",
    "tests/ui/test_startup.py",
    "tests/services/test_reports.py::test_transparency_files_mask_every_cpf",
    "tests/pgroles",
]

# Issue 17's guarantees: (test of tests/faults, fault tried, "refused" or "survived" when it passes).
# A passing case counts as refused (the fault is turned down with a pt_BR message, nothing written)
# or survived (the data come through intact); a failing or erroring case counts as lost.
BACKUPS = "tests/faults/test_backup_faults.py"
AUDIT = "tests/faults/test_audit_faults.py"
LOGINS = "tests/faults/test_logins_and_keys.py"
TEXT = "tests/faults/test_hostile_text.py"
SHEETS = "tests/faults/test_hostile_spreadsheets.py"
ACCESS = "tests/faults/test_lgpd_access_log.py"
RETENTION = "tests/faults/test_lgpd_retention.py"
BADGE_KEYS = "tests/faults/test_badge_key_store.py"
PGROLES = "tests/pgroles/test_per_user_roles.py"
ROLESETUP = "tests/pgroles/test_role_setup.py"
GUARANTEES: list[tuple[str, str, str]] = [
    (f"{AUDIT}::test_recounts_racing_issues_never_leave_more_mototaxi_permits_than_places",
     "1. 13 issuers and 12 recounts on a barrier, 4 mototáxi places", "survived"),
    (f"{AUDIT}::test_every_mapped_table_audits_core_inserts_updates_and_deletes",
     "2. Core INSERT/UPDATE/DELETE on every mapped table", "survived"),
    (f"{AUDIT}::test_every_service_writes_through_an_audited_session",
     "2. every service module walked for writes outside an audited session", "survived"),
    (f"{AUDIT}::test_ending_a_stand_assignment_is_audited",
     "2. ending a stand assignment (a Core UPDATE)", "survived"),
    (f"{AUDIT}::test_the_private_signing_key_never_reaches_the_database_nor_the_trail",
     "2, 13. the badge signing key: made and rotated, only its public half in settings and the trail", "survived"),
    (f"{AUDIT}::test_the_login_role_uses_the_data_but_cannot_rewrite_the_trail",
     "7. the login role: ALTER, DISABLE/DROP TRIGGER, TRUNCATE, DELETE/UPDATE on the trail, SET ROLE, GRANT",
     "refused"),
    (f"{AUDIT}::test_db_upgrade_keeps_the_login_role_able_to_work",
     "7. db-upgrade by the owner, then the login role at work", "survived"),
    (f"{AUDIT}::test_plain_sql_on_postgresql_is_recorded_and_names_who",
     "8. plain SQL by the login role on PostgreSQL", "survived"),
    (f"{AUDIT}::test_truncate_of_the_trail_is_refused_even_for_the_owner",
     "8. TRUNCATE of an append-only table, even by the owner", "refused"),
    (f"{AUDIT}::test_tampering_is_reported_at_the_first_broken_link",
     "9. a trail row edited, deleted, forged, reordered", "refused"),
    (f"{AUDIT}::test_audit_verify_command_names_the_broken_link",
     "9. `motodesk audit-verify` on a tampered trail", "refused"),
    (f"{AUDIT}::test_concurrent_writers_never_fork_the_chain",
     "9. 12 concurrent writers appending to the chain", "survived"),
    (f"{LOGINS}::test_every_command_that_reads_or_writes_refuses_to_run_without_a_login",
     "10. every command that reads or writes, without a login", "refused"),
    (f"{LOGINS}::test_the_terminal_acts_as_the_logged_in_user_and_the_lockout_applies",
     "10. wrong passwords on the terminal: lockout; the audit names the user", "refused"),
    (f"{LOGINS}::test_a_mistyped_sqlite_path_is_refused_and_not_created",
     "11. a mistyped SQLite path", "refused"),
    (f"{LOGINS}::test_a_postgresql_database_without_the_schema_is_refused",
     "11. a PostgreSQL database without MotoDesk's tables", "refused"),
    (f"{LOGINS}::test_ten_simultaneous_wrong_passwords_all_count_and_none_conflicts",
     "12. 10 simultaneous wrong passwords of one user", "refused"),
    (f"{LOGINS}::test_an_unknown_login_reads_and_takes_the_same_as_a_wrong_password",
     "12. an unknown login against a wrong password (text and time)", "refused"),
    (f"{LOGINS}::test_login_names_outside_the_safe_set_or_confusable_are_refused",
     "12. Cyrillic, full-width and look-alike login names", "refused"),
    (f"{LOGINS}::test_no_service_hands_out_the_private_key_and_no_export_carries_it",
     "13. every service and export searched for the private key", "refused"),
    (f"{LOGINS}::test_a_badge_signed_with_a_leaked_key_but_unknown_to_the_register_reads_forged",
     "13. badges signed with a leaked key, unknown to the print log", "refused"),
    (f"{LOGINS}::test_key_rotation_keeps_old_badges_verifying_and_reprints_nothing",
     "13. key rotation: old badges still verify, nothing reprinted", "survived"),
    (f"{SHEETS}::test_a_1_mb_file_that_inflates_to_1_gb_is_refused_fast_and_small",
     "14. a 1 MB xlsx inflating to 1 GB (honest and lying headers)", "refused"),
    (f"{SHEETS}::test_a_cell_longer_than_the_limit_is_refused_with_its_row_and_column",
     "14. a cell over the length limit", "refused"),
    (f"{SHEETS}::test_rows_in_hidden_sheets_never_reach_the_register",
     "14. data rows in hidden and very hidden sheets", "refused"),
    (f"{TEXT}::test_people_names_and_addresses_with_hostile_characters_are_refused",
     "15. bidi controls, zero-width characters, lone surrogates in names and addresses", "refused"),
    (f"{TEXT}::test_attachment_names_with_hostile_characters_and_html_polyglots_are_refused",
     "15. hostile attachment names; PDF/HTML polyglots", "refused"),
    (f"{TEXT}::test_every_search_takes_hostile_text_and_percent_literally",
     "15. hostile text, %, _ and \\ in every search", "survived"),
    (f"{ACCESS}::test_each_read_path_writes_exactly_its_record",
     "16. every read of criminal/medical records, their scans, a whole dossier", "survived"),
    (f"{ACCESS}::test_access_records_cannot_be_changed_or_deleted",
     "16. UPDATE and DELETE of access records with plain SQL", "refused"),
    (f"{RETENTION}::test_only_people_with_nothing_inside_the_window_are_anonymised",
     "17. anonymisation: people with business inside the window", "survived"),
    (f"{BACKUPS}::test_a_damaged_sqlite_database_is_not_backed_up",
     "3. backup of a damaged SQLite file (a broken foreign key; a page overwritten)", "refused"),
    (f"{BACKUPS}::test_a_damaged_postgresql_database_is_not_backed_up",
     "3. backup of a PostgreSQL database with an orphan row", "refused"),
    (f"{BACKUPS}::test_a_copy_damaged_on_the_way_is_not_kept",
     "3. the copy damaged while written (SQLite page; PostgreSQL file that loses data), read back", "refused"),
    (f"{BACKUPS}::test_forged_unsigned_or_foreign_backups_are_refused",
     "4. edited manifest, no signature, edited data, extra member, unknown key (then trusted)", "refused"),
    (f"{BACKUPS}::test_a_schema_other_than_the_migrations_is_refused",
     "4. validly re-signed backup with an extra trigger/table/function, a missing index/constraint", "refused"),
    (f"{BACKUPS}::test_table_contents_that_do_not_match_their_hash_are_refused",
     "4. validly re-signed backup whose table content differs from its hash", "refused"),
    (f"{BACKUPS}::test_table_hashes_are_the_same_on_both_databases",
     "4. per-table hashes: SQLite source = PostgreSQL restore = manifest", "survived"),
    (f"{BACKUPS}::test_code_planted_in_a_postgresql_backup_does_not_run",
     "5. planted function + trigger with COPY … TO PROGRAM, SQL in data and in a table name", "refused"),
    (f"{BACKUPS}::test_the_format_that_ran_pg_restore_is_refused",
     "5. an old pg_dump backup (the format restored with pg_restore)", "refused"),
    (f"{BACKUPS}::test_audit_rows_are_restored_verbatim_with_the_triggers_back",
     "5. audit rows restored verbatim, no trigger writes for restored data, triggers back", "survived"),
    (f"{BACKUPS}::test_truncated_and_corrupted_files_are_refused",
     "6. truncated zip (3 cuts), bad CRC: pt_BR naming the file, target left empty", "refused"),
    (f"{BACKUPS}::test_truncated_and_corrupted_files_are_named_from_the_command_line",
     "6. the same from the command line: exit 1, never 3", "refused"),
    (f"{BACKUPS}::test_a_full_disk_is_named_and_leaves_nothing_behind",
     "6. full disk (ENOSPC at the write) while backing up and while extracting", "refused"),
    (f"{BACKUPS}::test_a_file_size_limit_during_a_command_line_backup",
     "6. file-size limit (RLIMIT_FSIZE) in a command-line backup", "refused"),
    (f"{BACKUPS}::test_backups_and_key_files_are_readable_by_their_owner_only",
     "13. backup zip, its members, key files, restored SQLite file: mode 0600 under umask 0", "survived"),
    # issue 25, items 2 and 5: the badge key with the printing workstations; old prints field by field
    (f"{BADGE_KEYS}::test_a_workstation_not_registered_verifies_but_cannot_print_nor_sign",
     "25.2 a workstation without the key: print, status list, export refused; verifies; registers by file",
     "refused"),
    (f"{BADGE_KEYS}::test_rotation_puts_the_new_key_on_this_workstation_and_old_badges_keep_verifying",
     "25.2 key rotation: new key on this workstation only, old badges verify, other stations re-register",
     "survived"),
    (f"{BADGE_KEYS}::test_a_rotation_that_fails_in_the_database_keeps_the_old_key_working",
     "25.2 a rotation whose database write fails: new key taken back, old one signs", "survived"),
    (f"{BADGE_KEYS}::test_no_backup_audit_row_or_log_carries_the_private_key",
     "25.2 backups, audit rows, settings, logs, site after print + rotation: no PEM/DER/seed bytes", "refused"),
    (f"{BADGE_KEYS}::test_upgrading_a_0015_database_moves_the_key_to_this_workstation",
     "25.2 a 0015 database with the key in settings, upgraded: key in the station store, not in the DB",
     "survived"),
    (f"{BADGE_KEYS}::test_an_upgrade_whose_workstation_cannot_keep_the_key_stops_and_keeps_it",
     "25.2 an upgrade whose key store refuses: upgrade stops, key kept in the DB", "refused"),
    (f"{BADGE_KEYS}::test_an_old_print_without_a_digest_is_checked_on_every_field",
     "25.5 claims on an old print (no digest) differing in each field, or signed by a later key", "refused"),
    # Issue 25, item 1 (and the role bits of 31 / 25.7): per-user roles on a scratch SCRAM cluster.
    (f"{PGROLES}::test_a_session_cannot_name_someone_else_in_the_trail_or_hide_the_values",
     "25.1 set_config('motodesk.user','chefe') and motodesk.redact=on in a user's own session", "refused"),
    (f"{PGROLES}::test_an_access_log_row_naming_someone_else_is_written_with_the_real_author",
     "25.1 INSERT into access_log naming someone else", "refused"),
    (f"{PGROLES}::test_a_clerk_role_is_refused_what_a_clerk_may_not_do",
     "25.1 a clerk's role: write users/settings/decisions, rewrite or forge the trail, manage roles", "refused"),
    (f"{PGROLES}::test_not_even_an_administrator_rewrites_the_trail_or_the_access_log",
     "25.1 an administrator's role: DELETE/TRUNCATE the trail, UPDATE the access log", "refused"),
    (f"{PGROLES}::test_the_pre_login_role_reads_no_data",
     "25.1 the workstations' pre-login role reading users, settings, people", "refused"),
    (f"{PGROLES}::test_a_disabled_user_cannot_connect_and_an_enabled_one_can_again",
     "25.1 a disabled user connecting to the server", "refused"),
    (f"{PGROLES}::test_wrong_passwords_lock_the_role_and_a_locked_login_reads_like_a_wrong_password",
     "25.1, 25.7 five wrong passwords: role NOLOGIN, locked answers like a wrong password", "refused"),
    (f"{ROLESETUP}::test_the_upgrade_from_the_shared_login_role_gives_each_user_a_role",
     "25.1 upgrade of a shared-login-role installation to per-user roles", "survived"),
    (f"{ROLESETUP}::test_init_db_login_role_runs_again_for_an_existing_role_without_a_superuser",
     "31 init-db --login-role twice for an existing role, non-superuser owner", "survived"),
    (f"{ROLESETUP}::test_init_db_without_createrole_ends_in_portuguese_with_exit_1",
     "31, 25.7 init-db --login-role / --per-user-roles without CREATEROLE: pt_BR, exit 1", "refused"),
    # issue 31 (backups that cannot be restored, raw server messages) and issue 25 items 6-7 (restores)
    ("tests/faults/test_backup_refuses_damage.py::test_a_damaged_postgresql_schema_is_not_backed_up",
     "31. PostgreSQL backup of a damaged schema (17 variants: index, unique, CHECK, FK, trigger dropped or "
     "disabled, table dropped/added, column added/dropped/retyped, NOT NULL, default, alembic_version)", "refused"),
    ("tests/faults/test_backup_refuses_damage.py::test_a_damaged_sqlite_schema_is_not_backed_up",
     "31. SQLite backup of a damaged schema (8 variants)", "refused"),
    ("tests/faults/test_backup_refuses_damage.py::test_a_healthy_postgresql_backup_still_restores",
     "31. a healthy PostgreSQL backup still restores", "survived"),
    ("tests/faults/test_backup_refuses_damage.py::test_a_healthy_sqlite_backup_still_restores",
     "31. a healthy SQLite backup still restores", "survived"),
    ("tests/faults/test_database_errors_pt_br.py::test_an_infinite_date_is_named_in_portuguese",
     "31. a PostgreSQL date 'infinity' read by a command: pt_BR, exit 1, original in the log", "refused"),
    ("tests/faults/test_database_errors_pt_br.py::test_permission_denied_is_named_in_portuguese",
     "31. a REVOKE'd table for a real role: pt_BR naming the table, exit 1", "refused"),
    ("tests/faults/test_database_errors_pt_br.py::test_constraint_violations_are_explained",
     "31. unique, not-null, foreign key violations explained in pt_BR", "refused"),
    ("tests/faults/test_database_errors_pt_br.py::test_server_conditions_are_explained",
     "31. out of range, read-only, lock and statement timeout, connection killed", "refused"),
    ("tests/faults/test_database_errors_pt_br.py::test_sqlite_conditions_are_explained",
     "31. SQLite full (max_page_count) and read-only", "refused"),
    ("tests/faults/test_database_errors_pt_br.py::test_a_backup_of_text_that_is_no_utf8_ends_in_portuguese",
     "25.7 backup of a file with invalid UTF-8 (file name, output name, a text column): pt_BR, exit 1", "refused"),
    ("tests/faults/test_restore_leaves_nothing.py::test_a_restore_refused_after_the_copy_leaves_no_target",
     "25.6 a restore refused at its last check leaves no target file / an empty database", "refused"),
    ("tests/faults/test_restore_leaves_nothing.py::test_a_refused_sqlite_restore_creates_no_file",
     "25.6 a refused SQLite restore creates no target file", "refused"),
    ("tests/faults/test_restore_leaves_nothing.py::test_duplicate_member_names_are_refused",
     "25.6 a zip with a member name twice", "refused"),
    ("tests/faults/test_restore_leaves_nothing.py::test_a_bombed_manifest_or_signature_is_refused_fast_and_small",
     "25.6 1 MB zip whose manifest or signature inflates to 1 GiB: < 1 s, < 200 MB (child process)", "refused"),
    ("tests/faults/test_restore_leaves_nothing.py::test_a_restore_killed_midway_leaves_no_usable_database",
     "25.6 SIGKILL of `motodesk restore` midway; the next run cleans up and says so", "survived"),
]

# Issue 25, items 3 (a trail whose end is anchored) and 4 (the public page fails closed). A test named
# with its parameter ("test[edited]") is a row of its own: one row per variant.
CHECKPOINTS = "tests/faults/test_audit_checkpoints.py"
FAIL_CLOSED = "tests/verifier/test_verifier_fail_closed.py"
ADMIN_CHECK = "tests/ui/test_admin_audit_checkpoint.py"
SUITE += [FAIL_CLOSED, ADMIN_CHECK]
GUARANTEES += [
    (f"{CHECKPOINTS}::test_a_clean_chain_with_checkpoints_is_intact",
     "25.3 a clean chain with two checkpoints: \"íntegra\"", "survived"),
    (f"{CHECKPOINTS}::test_deleting_the_newest_rows_after_a_checkpoint_is_detected",
     "25.3 the newest 1 and 4 audit rows deleted after a checkpoint: count and ids reported", "refused"),
    (f"{CHECKPOINTS}::test_rows_deleted_then_the_trail_continued_is_detected",
     "25.3 the newest rows deleted, then the workstations go on writing", "refused"),
    (f"{CHECKPOINTS}::test_a_tampered_checkpoint_is_detected",
     "25.3 a checkpoint edited: its row count, its last hash, its signature", "refused"),
    (f"{CHECKPOINTS}::test_a_checkpoint_re_signed_with_another_key_is_refused",
     "25.3 a checkpoint re-signed with another key", "refused"),
    (f"{CHECKPOINTS}::test_a_deleted_middle_checkpoint_breaks_the_checkpoints_chain",
     "25.3 a checkpoint deleted from the middle", "refused"),
    (f"{CHECKPOINTS}::test_deleting_rows_and_the_newest_checkpoint_is_caught_by_the_published_copy",
     "25.3 rows and the newest checkpoint deleted: caught by the published copy, which is kept", "refused"),
    (f"{CHECKPOINTS}::test_every_broken_link_is_listed",
     "25.3 two separate tamperings: both broken links listed", "refused"),
    (f"{CHECKPOINTS}::test_checkpoints_are_append_only",
     "25.3 UPDATE and DELETE of a checkpoint with plain SQL", "refused"),
    (f"{CHECKPOINTS}::test_a_backup_writes_a_checkpoint", "25.3 a backup seals the head it copies", "survived"),
    (f"{CHECKPOINTS}::test_daily_then_audit_verify_from_the_command_line",
     "25.3 `daily --publish-status`, then `audit-verify` on rows deleted: exit 1", "refused"),
    (f"{ADMIN_CHECK}::test_the_audit_check_shows_the_checkpoint_findings",
     "25.3 Administração's audit check: clean, rows deleted, checkpoint tampered", "refused"),
    *[(f"{FAIL_CLOSED}::test_{visit}[{variant}]", f"25.4 status.json {what}, {label} (Chromium)", "refused")
      for variant, what in (("edited", "edited"), ("resigned", "re-signed with another key"),
                            ("foreign-key", "signed by a key the page does not ship"), ("garbage", "garbage"),
                            ("missing", "missing (404)"), ("replayed", "an older genuine list replayed"),
                            ("future", "dated tomorrow"))
      for visit, label in (("first_visit_without_a_current_genuine_list_is_never_valid", "first visit"),
                           ("returning_visit_keeps_the_newer_genuine_list", "returning visit"))],
    (f"{FAIL_CLOSED}::test_a_kept_list_past_the_freshness_limit_no_longer_confirms",
     "25.4 the phone's kept list older than 4 days, offline: not confirmed", "refused"),
    (f"{FAIL_CLOSED}::test_a_future_list_kept_by_an_older_page_is_dropped",
     "25.4 a future-dated list already kept on the phone", "refused"),
    (f"{FAIL_CLOSED}::test_a_list_within_the_clock_skew_is_accepted",
     "25.4 a list 2 minutes ahead (within the 5-minute skew)", "survived"),
]


# Issue 25, item 1 closed (and its list of attacks, one row each): the temporary password, every
# profile's work and refusals, backups/routines/first administrator under the users' own roles.
TEMP = "tests/pgroles/test_temporary_password.py"
WORKFLOWS = "tests/pgroles/test_profile_workflows.py"
ADMIN_BACKUP = "tests/pgroles/test_admin_backup.py"
ROUTINES = "tests/pgroles/test_routines_under_roles.py"
FIRST_ADMIN = "tests/pgroles/test_first_admin.py"
GUARANTEES += [
    (f"{PGROLES}::test_only_an_administrators_session_redacts_values",
     "25.1 motodesk.redact=on: obeyed only in an administrator's own session", "refused"),
    (f"{WORKFLOWS}::test_an_access_log_row_written_by_hand_carries_the_servers_author_and_time",
     "25.1 access_log INSERT naming chefe, back-dated to 2001, by each profile: real author, server time",
     "refused"),
    (f"{WORKFLOWS}::test_no_profile_reads_a_badge_private_key_from_the_database",
     "25.2 key read: each profile's role searches settings for a private key", "refused"),
    (f"{TEMP}::test_saying_the_password_changed_without_changing_it_is_refused_and_the_flag_stays",
     "25.1 temp-password flag: motodesk_own_password_changed() without a new password (new user, reset)",
     "refused"),
    (f"{TEMP}::test_after_alter_role_password_the_server_clears_the_flag",
     "25.1 temp-password flag: ALTER ROLE … PASSWORD, then the function clears it", "survived"),
    (f"{TEMP}::test_a_user_cannot_write_the_flag_nor_the_marks",
     "25.1 temp-password flag: UPDATE users / role_password_marks by the user", "refused"),
    (f"{TEMP}::test_an_administrator_with_a_temporary_password_cannot_clear_his_own_flag",
     "25.1 temp-password flag: an administrator's own UPDATE, the set verifier re-sent, a self reset", "refused"),
    (f"{TEMP}::test_the_application_changes_the_password_and_ends_the_flag_in_one_server_step",
     "25.1 temp-password flag: the program's change (one server step); a clear-text password refused",
     "survived"),
    (f"{WORKFLOWS}::test_each_profiles_typical_work_succeeds_under_its_own_role_and_names_it",
     "25.1 each profile's typical work under its own role (clerk, inspector, supervisor, admin)", "survived"),
    (f"{WORKFLOWS}::test_what_a_profile_may_not_do_the_server_refuses",
     "25.1 out-of-profile SQL per profile (permits, decisions, settings, users, roles, trail, access log, "
     "checkpoints, DDL): permission denied", "refused"),
    (f"{ADMIN_BACKUP}::test_an_administrators_own_role_backs_up_and_the_copy_restores",
     "25.1 PostgreSQL backup by an administrator's own role (no CREATE on the database), restored", "survived"),
    (f"{ADMIN_BACKUP}::test_the_scratch_schema_given_to_an_administrator_can_never_be_committed",
     "25.1 the backup's scratch schema committed by hand", "refused"),
    (f"{ROUTINES}::test_daily_from_the_command_line_runs_as_the_clerks_own_role",
     "25.1 `daily` by a clerk through the pre-login role: suspension lifted, term ended, checkpoint", "survived"),
    (f"{ROUTINES}::test_the_register_import_runs_as_the_clerks_own_role",
     "25.1 the register import by a clerk's own role", "survived"),
    (f"{ROUTINES}::test_retention_runs_as_the_administrators_own_role",
     "25.1 LGPD anonymisation by an administrator's own role", "survived"),
    (f"{FIRST_ADMIN}::test_the_wizards_step_creates_the_first_administrator_as_his_own_role",
     "25.1 first administrator from the pre-login role (wizard step); a second refused", "survived"),
    (f"{FIRST_ADMIN}::test_the_set_up_wizard_creates_the_first_administrator_through_the_pre_login_role",
     "25.1 the set-up wizard's first administrator on a new per-user-roles installation", "survived"),
    (f"{FIRST_ADMIN}::test_create_user_through_the_workstations_url_makes_the_first_administrator",
     "25.1 `create-user` through the workstation's URL on a new installation", "survived"),
]

# Issue 31: one guarded reader for every spreadsheet, one name cleaner for every path.
GUARD = "tests/faults/test_spreadsheet_guard.py"
GUARANTEES += [
    (f"{GUARD}::test_bombs_under_the_old_limits_are_refused_fast_and_small_on_both_readers",
     "31. styles 100 MB, shared strings 100 MB, 4 M shared strings, a sub-4 MB member at ratio 976, a lying "
     "styles header; register and tender readers; child < 5 s and < 250 MB RSS", "refused"),
    (f"{GUARD}::test_the_guard_accepts_the_skeletons_and_a_disguised_strings_part_is_counted",
     "31. shared strings hidden in a part with another name", "refused"),
    (f"{GUARD}::test_a_dtd_in_any_part_is_refused", "31. an XML part with a DTD (entity expansion)", "refused"),
    (f"{GUARD}::test_a_hidden_first_sheet_is_never_imported_in_the_register",
     "31. hidden and very hidden first sheet, register import", "refused"),
    (f"{GUARD}::test_a_hidden_first_sheet_is_never_imported_as_candidates",
     "31. hidden and very hidden first sheet, tender import", "refused"),
    (f"{GUARD}::test_bad_files_on_the_tender_path_are_named",
     "31. encrypted, empty, .xls and CSV files on the tender path", "refused"),
    (f"{GUARD}::test_names_pass_the_same_cleaner_in_the_register_import",
     "31. combining-only and U+FE0F names (and a decomposed João), register import", "refused"),
    (f"{GUARD}::test_names_pass_the_same_cleaner_in_the_tender_import_and_typed",
     "31. combining-only and U+FE0F names (and a decomposed João), tender import and typed", "refused"),
    (f"{GUARD}::test_a_file_over_the_tender_limit_is_refused_by_its_path_unread",
     "31. a 1 GB file on the tender path: refused by its size, never read", "refused"),
    (f"{GUARD}::test_an_exported_spreadsheet_is_readable_by_its_owner_only",
     "31. an exported spreadsheet under umask 0: mode 0600", "survived"),
]

def guarantee_rows(tree: ET.ElementTree) -> list[str]:
    """The guarantees' table: tried / refused / survived / lost, counted from the junit report."""
    counts: dict[str, list[int]] = {test: [0, 0, 0, 0] for test, _fault, _kind in GUARANTEES}
    for case in tree.iter("testcase"):
        path = case.get("classname", "").replace(".", "/") + ".py"
        test = f"{path}::{case.get('name', '').split('[')[0]}"
        if test not in counts:  # a row for one parameter (a variant)
            test = f"{path}::{case.get('name', '')}"
        if test not in counts or any(child.tag == "skipped" for child in case):
            continue
        row = counts[test]
        row[0] += 1
        lost = any(child.tag in ("failure", "error") for child in case)
        kind = next(k for t, _f, k in GUARANTEES if t == test)
        row[3 if lost else 1 if kind == "refused" else 2] += 1
    lines = ["| guarantee (issue 17) | test | tried | refused | survived | lost |", "|---|---|---|---|---|---|"]
    for test, fault, _kind in GUARANTEES:
        tried, refused, survived, lost = counts[test]
        lines.append(f"| {fault} | `{test.split('::')[1]}` | {tried} | {refused} | {survived} | {lost} |")
    return lines


def main() -> int:
    only = sys.argv[1:]
    with tempfile.TemporaryDirectory() as tmp:
        report = Path(tmp) / "faults.xml"
        env = {**os.environ, "QT_QPA_PLATFORM": "offscreen", "MOTODESK_REQUIRE_PG": "1"}
        proc = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", f"--junitxml={report}",
                               *(only or SUITE)], cwd=ROOT, env=env, capture_output=True, text=True)
        if not report.exists():
            print(proc.stdout[-3000:], proc.stderr[-3000:])
            return 1
        tree = ET.parse(report)
    per_file: dict[str, list[float]] = defaultdict(lambda: [0, 0, 0.0])
    for case in tree.iter("testcase"):
        name = case.get("classname", "").replace(".", "/")
        key = name.split("::")[0]
        row = per_file[key]
        failed = any(child.tag in ("failure", "error") for child in case)
        skipped = any(child.tag == "skipped" for child in case)
        row[1 if failed or skipped else 0] += 1
        row[2] += float(case.get("time", 0))
    print("| tests | passed | failed or skipped | seconds |")
    print("|---|---|---|---|")
    for key in sorted(per_file):
        ok, bad, seconds = per_file[key]
        print(f"| `{key}` | {ok:.0f} | {bad:.0f} | {seconds:.1f} |")
    total_ok = sum(r[0] for r in per_file.values())
    total_bad = sum(r[1] for r in per_file.values())
    print(f"| all | {total_ok:.0f} | {total_bad:.0f} | {sum(r[2] for r in per_file.values()):.1f} |")
    print()
    print((ROOT / "bench" / "faults.md").read_text(encoding="utf-8").strip())
    print()
    print("\n".join(guarantee_rows(tree)))
    if proc.returncode != 0:
        print(proc.stdout[-3000:], file=sys.stderr)
    return 0 if proc.returncode == 0 and total_bad == 0 else 1


if __name__ == "__main__":
    raise SystemExit(main())
