"""Every stable error code, with its meaning in pt_BR.

A :class:`~motodesk.services.errors.MotodeskError` carries one of these codes (its class's, or a
finer one named at the raise); a refusal of the law carries ``rule_violation`` and, in each of its
verdicts, the ``rule_id`` of the rule that said no. The codes are part of the interface: the command
line prints them, tests assert them, and they do not change when a sentence is reworded. A test
(``tests/services/test_error_codes.py``) fails when an error class or a ``code="…"`` at a raise
names a code missing here.
"""

from __future__ import annotations

#: code -> what it means (pt_BR, for the manual and the support desk).
CODES: dict[str, str] = {
    "error": "Não foi possível concluir a operação (erro esperado sem código mais específico).",
    "conflict": "Outra estação alterou o mesmo registro antes; recarregue e refaça a alteração.",
    "permission_denied": "O perfil do usuário não permite esta operação.",
    "not_found": "O registro pedido não existe (ou foi excluído).",
    "database_unavailable": "O banco de dados não está acessível agora.",
    "authentication": "Usuário ou senha não conferem, ou o acesso está bloqueado.",
    "invalid_input": "Dados inválidos: nada foi gravado; cada campo diz o motivo.",
    "rule_violation": "A Lei nº 4.883/2017 impede a operação; cada motivo cita o artigo (e a regra, rule_id).",
    "photo_quality": "A foto tem avisos de qualidade e não foi informado o motivo para aceitá-la.",
    "backup": "Não foi possível gravar ou conferir a cópia de segurança.",
    "restore": "Não foi possível restaurar a cópia de segurança; o banco atual não foi alterado.",
    "station_key": "Esta estação não consegue guardar ou ler a chave de assinatura dos crachás.",
    "guarded_state": "Mudança de situação legal sem passar pela decisão das regras; desfeita.",
    "print_queue": "A impressora não aceita o trabalho ou a fila de impressão o recusou.",
    "database": "Problema no banco de dados (versão, conexão ou gravação), explicado na mensagem.",
}


def meaning(code: str) -> str:
    """The pt_BR meaning of ``code``; KeyError for a code nobody registered."""
    return CODES[code]


def code_of(exc: BaseException) -> str:
    """The stable code of an error the command line shows (``database`` for the database's own)."""
    code = getattr(exc, "code", None)
    return code if isinstance(code, str) else "database"
