"""The public badge verifier from a terminal: publish-verifier (the static site) and publish-status
(the signed status list the page fetches).

The site is plain files for any web server -- the prefeitura's own site will do -- with nothing to
run on the server: ``index.html``, ``verifier.js``, ``verifier.css``, ``sw.js`` (offline use), the
vendored Ed25519 code, ``keys.json`` (the public keys) and ``status.json``. Copy the folder to the
address of the setting ``verifier_base_url`` (the badges' QR codes point there) and refresh
``status.json`` every day (``motodesk daily --publish-status PASTA``).
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from pathlib import Path
from typing import Any

from motodesk.commands import logs_in, open_context


def register(sub: Any, add_db_arg: Callable[[argparse.ArgumentParser], None]) -> None:
    p = sub.add_parser(
        "publish-verifier", help="grava o site estático que verifica os crachás pelo celular",
        description="Grava em PASTA a página pública de verificação dos crachás (HTML, script, estilo, as "
                    "chaves públicas e a lista de situação assinada). Não há nada a executar no servidor: "
                    "copie a pasta para o endereço da configuração verifier_base_url, que é para onde "
                    "apontam os códigos QR dos crachás.")
    p.add_argument("out", metavar="PASTA", help="pasta onde gravar o site (criada se faltar)")
    p.add_argument("--base-url", metavar="ENDEREÇO", default=None,
                   help="grava antes a configuração verifier_base_url (https://…, supervisor ou administrador): "
                        "o endereço onde a pasta será publicada, impresso nos códigos QR dos crachás "
                        "impressos daqui em diante")
    logs_in(p, add_db_arg, cmd_publish_verifier)
    p = sub.add_parser(
        "publish-status", help="grava a lista de situação assinada dos crachás (status.json)",
        description="Grava PASTA/status.json: permissões suspensas, cassadas e canceladas, prepostos "
                    "suspensos, cassados e desvinculados e a via em uso dos crachás reimpressos, assinada "
                    "com a chave dos crachás. A página de verificação a baixa quando há internet e guarda "
                    "a última para uso sem conexão.")
    p.add_argument("out", metavar="PASTA", help="a pasta do site do verificador")
    logs_in(p, add_db_arg, cmd_publish_status)


def print_status(result: Any) -> None:
    from motodesk.services.clock import local_time

    print(f"Lista de situação gravada em {result.path} ({local_time(result.issued_at):%d/%m/%Y %H:%M}, "
          f"chave {result.key_id}): {result.permits} permissão(ões), {result.deputies} preposto(s), "
          f"{result.reprinted} crachá(s) com via substituída.")
    if result.checkpoint is not None:
        print(result.checkpoint.line)


def cmd_publish_verifier(args: argparse.Namespace) -> int:
    from motodesk.services.badges import publish_verifier

    ctx = open_context(args)
    if args.base_url:
        from motodesk.services.settings import law_settings, update_settings

        before = law_settings(ctx).verifier_base_url
        after = update_settings(ctx, {"verifier_base_url": args.base_url.strip()}).verifier_base_url
        if after != before:
            print(f"Endereço do verificador: {after} (antes: {before}). Os crachás já impressos apontam para o "
                  "endereço antigo: mantenha-o no ar (ou redirecione-o) até serem reimpressos.")
    result = publish_verifier(ctx, Path(args.out))
    print(f"Verificador gravado em {result.out_dir}: {', '.join(result.files)}.")
    print_status(result.status)
    print(f"Copie a pasta para {result.base_url} (configuração verifier_base_url); os códigos QR dos crachás "
          "apontam para esse endereço. Atualize status.json todo dia (motodesk daily --publish-status PASTA).")
    return 0


def cmd_publish_status(args: argparse.Namespace) -> int:
    from motodesk.services.badges import publish_status

    print_status(publish_status(open_context(args), Path(args.out)))
    return 0
