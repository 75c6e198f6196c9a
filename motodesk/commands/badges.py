"""Badges from a terminal: verify-badge (with the register, or offline with the public key),
export-public-key, rotate-badge-key, register-printer-station and export-badge-signing-key.

Exit codes of ``verify-badge``: 0 the badge is valid; 4 it is not (expired, suspended, revoked,
cancelled, superseded or forged); 1 the check could not be made (database, key file).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from motodesk.commands import logs_in, open_context

EXIT_OK = 0
EXIT_NOT_VALID = 4


def register(sub: Any, add_db_arg: Callable[[argparse.ArgumentParser], None]) -> None:
    p = sub.add_parser(
        "verify-badge",
        help="verifica o código QR de um crachá",
        description="Verifica o texto lido do código QR de um crachá. Com o banco de dados, confere também "
                    "a situação da permissão (suspensa, cassada, via substituída); com --public-key, "
                    "funciona sem banco, só pela assinatura e pela validade impressa. "
                    "Saída: 0 válido, 4 não válido, 1 erro.",
    )
    p.add_argument("text", metavar="TEXTO", help="o texto do código QR ('-' lê da entrada padrão)")
    p.add_argument("--public-key", metavar="ARQUIVO", default=None,
                   help="arquivo da chave pública (motodesk export-public-key): verifica sem banco de dados "
                        "(e sem login)")
    logs_in(p, add_db_arg, cmd_verify_badge)
    p = sub.add_parser("export-public-key", help="grava a chave pública que verifica os crachás")
    p.add_argument("file", metavar="ARQUIVO", nargs="?", default=None,
                   help="onde gravar (padrão: mostra na saída)")
    logs_in(p, add_db_arg, cmd_export_public_key)
    p = sub.add_parser(
        "rotate-badge-key", help="troca a chave de assinatura dos crachás (administrador)",
        description="Cria uma nova chave de assinatura para os crachás impressos daqui em diante. As chaves "
                    "públicas anteriores continuam verificando os crachás que assinaram (enquanto o cadastro "
                    "confirmar seus dados); nenhum crachá é reimpresso. Exporte de novo a chave pública "
                    "para os verificadores sem banco.")
    logs_in(p, add_db_arg, cmd_rotate_badge_key)
    p = sub.add_parser(
        "register-printer-station", help="registra esta estação para imprimir crachás (administrador)",
        description="Guarda nesta estação a chave privada que assina os crachás e a lista de situação (no "
                    "cofre de senhas do sistema ou, sem cofre, num arquivo legível só pelo usuário). O banco "
                    "de dados guarda só as chaves públicas: estações não registradas verificam crachás, mas "
                    "não imprimem. Sem chave no banco, cria a primeira; senão, use --key-file com o arquivo "
                    "gravado por 'motodesk export-badge-signing-key' numa estação registrada.")
    p.add_argument("--key-file", metavar="ARQUIVO", default=None,
                   help="a chave privada exportada numa estação registrada (apague o arquivo depois)")
    logs_in(p, add_db_arg, cmd_register_printer_station)
    p = sub.add_parser(
        "export-badge-signing-key", help="grava a chave PRIVADA dos crachás para registrar outra estação",
        description="Grava em ARQUIVO (novo, legível só pelo seu dono) a chave privada atual dos crachás, "
                    "que esta estação guarda, para registrar outra estação de impressão "
                    "('motodesk register-printer-station --key-file ARQUIVO' nela). Quem tem o arquivo "
                    "assina crachás: leve-o em mídia sua e apague-o assim que a outra estação o importar.")
    p.add_argument("file", metavar="ARQUIVO", help="onde gravar (não pode existir)")
    logs_in(p, add_db_arg, cmd_export_badge_signing_key)


def _read_text(value: str) -> str:
    if value != "-":
        return value
    data = sys.stdin.buffer.read(64 * 1024)
    return data.decode("utf-8", errors="replace")


def cmd_verify_badge(args: argparse.Namespace) -> int:
    from motodesk.services.badges import verify_badge, verify_offline
    from motodesk.services.errors import MotodeskError

    if args.public_key:
        text = _read_text(args.text)
        path = Path(args.public_key)
        try:
            public = path.read_bytes()
        except OSError as exc:
            raise MotodeskError(f"Não foi possível ler a chave pública {path}: {exc.strerror or exc}.") from None
        try:
            result = verify_offline(text, public)
        except ValueError:
            raise MotodeskError(f"O arquivo {path} não é uma chave pública de crachás (Ed25519, PEM).") from None
    else:
        ctx = open_context(args)  # the password is the first line of standard input, the text ('-') after it
        result = verify_badge(ctx, _read_text(args.text))
    print(result.status.label)
    print(result.message)
    details = [
        ("Permissão/autorização", result.permit_number),
        ("Portador", result.holder_name),
        ("Tipo", result.holder_kind),
        ("Válido até", result.valid_until.strftime("%d/%m/%Y") if result.valid_until else None),
        ("Via", f"{result.issue_no}ª" if result.issue_no else None),
    ]
    for label, value in details:
        if value:
            print(f"  {label}: {value}")
    return EXIT_OK if result.valid else EXIT_NOT_VALID


def cmd_export_public_key(args: argparse.Namespace) -> int:
    from motodesk.services.badges import public_key_pem, write_owner_only

    pem = public_key_pem(open_context(args))
    if args.file:
        path = Path(args.file)
        try:
            write_owner_only(path, pem)
        except OSError as exc:
            from motodesk.services.errors import MotodeskError

            raise MotodeskError(f"Não foi possível gravar {path}: {exc.strerror or exc}.") from None
        print(f"Chave pública dos crachás gravada em {path}.")
    else:
        sys.stdout.write(pem.decode("ascii"))
    return EXIT_OK


def cmd_rotate_badge_key(args: argparse.Namespace) -> int:
    from motodesk.services.badges import rotate_signing_key

    result = rotate_signing_key(open_context(args))
    print(f"Nova chave de assinatura dos crachás: {result.new_key_id}.")
    print(f"Chaves anteriores mantidas para verificação: {', '.join(result.retired_key_ids) or 'nenhuma'}.")
    print(f"{result.badges_by_older_keys} crachá(s) em uso foram assinados por chave anterior; continuam "
          "válidos enquanto o cadastro confirmar seus dados. Nenhum crachá foi reimpresso.")
    print("A nova chave privada ficou só nesta estação, que está registrada para imprimir; registre de novo "
          "as outras estações de impressão (motodesk export-badge-signing-key e "
          "motodesk register-printer-station --key-file).")
    print("Exporte de novo a chave pública (motodesk export-public-key) para os verificadores sem banco.")
    return EXIT_OK


def cmd_register_printer_station(args: argparse.Namespace) -> int:
    from motodesk.services.badges import register_printing_station

    result = register_printing_station(open_context(args), Path(args.key_file) if args.key_file else None)
    if result.already:
        print(f"Esta estação já está registrada para imprimir crachás (chave {result.key_id}, guardada "
              f"{result.where}).")
    elif result.created:
        print(f"Primeira chave de assinatura dos crachás criada: {result.key_id}. A chave privada ficou só "
              f"nesta estação ({result.where}); o banco de dados guarda a chave pública.")
    else:
        print(f"Estação registrada para imprimir crachás (chave {result.key_id}, guardada {result.where}). "
              f"Apague agora o arquivo {args.key_file}.")
    return EXIT_OK


def cmd_export_badge_signing_key(args: argparse.Namespace) -> int:
    from motodesk.services.badges import export_signing_key

    kid = export_signing_key(open_context(args), Path(args.file))
    print(f"Chave privada dos crachás ({kid}) gravada em {args.file}. Quem tem este arquivo assina crachás: "
          "importe-o na outra estação (motodesk register-printer-station --key-file) e apague-o em seguida.")
    return EXIT_OK
