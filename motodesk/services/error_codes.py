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
    # finer codes, named at one raise (or a few that say the same) -----------------------------------
    "attachment.bad_type": "O arquivo anexado não é PDF, JPEG ou PNG (o conteúdo não corresponde).",
    "attachment.html_polyglot": "O PDF contém também uma página da web (pode executar código): não se anexa.",
    "attachment.removed": "O anexo já foi removido por um supervisor.",
    "backup.broken_references": "O banco tem referências quebradas: nenhuma cópia foi gravada.",
    "backup.damaged_database": "O banco de dados (ou a cópia dele) está danificado: nada foi gravado.",
    "backup.disk_refused": "O disco de destino recusou a gravação (cheio, somente leitura ou sem permissão).",
    "backup.file_exists": "O arquivo da cópia de segurança já existe: uma cópia nunca sobrescreve outra.",
    "backup.file_missing": "O arquivo da cópia de segurança indicado não existe.",
    "backup.no_revision": "O banco não tem a revisão do esquema (alembic_version vazia): nada foi gravado.",
    "backup.read_back_differs": "A cópia gravada, lida de volta, não confere com o banco: foi descartada.",
    "backup.schema_differs": "O esquema do banco difere do que as migrações constroem: nada foi gravado.",
    "backup_key.private": "O arquivo indicado traz uma chave privada: importa-se só a chave pública.",
    "badge.duplicate_in_print": "O mesmo crachá aparece duas vezes na mesma impressão.",
    "badge_key.file_exists": "O arquivo de destino da chave dos crachás já existe: escolha outro nome.",
    "badge_key.not_current": "A chave do arquivo não é a chave atual dos crachás (houve troca de chave).",
    "badge_key.not_private_key": "O arquivo não contém uma chave privada de crachás do MotoDesk.",
    "badge_key.station_lacks_key": "Já existe chave dos crachás e esta estação não a tem: importe-a.",
    "badge_key.station_not_registered": "Esta estação não está registrada para imprimir crachás.",
    "badge_key.write_failed": "Não foi possível gravar a chave de assinatura dos crachás nesta estação.",
    "campaign.already_open": "Já há um recadastramento aberto: encerra-se um antes de abrir outro.",
    "campaign.appointments_ahead": "Há atendimentos do recadastramento ainda por vir: não se encerra.",
    "campaign.closed": "O recadastramento já foi encerrado.",
    "campaign.not_yet_time": "O horário agendado ainda não chegou: não se marca falta antes dele.",
    "constraint": "Uma regra do próprio banco (registro único, vínculo ou limite) recusou a gravação; a mensagem diz qual.",
    "deadline.no_permit_in_force": "Nenhuma linha é de titular com permissão em vigor: não há carta a gerar.",
    "demo.database_not_empty": "O banco já tem dados: a demonstração só se cria num banco vazio.",
    "demo.extra_missing": "Os dados de demonstração precisam do pacote opcional 'demo', que não está instalado.",
    "deputy.link_ended": "O vínculo do preposto já terminou: não se altera mais.",
    "export.folder_missing": "A pasta de destino da exportação não existe.",
    "export.not_xlsx": "O arquivo da exportação deve terminar em .xlsx.",
    "export.unknown_kind": "Tipo de exportação desconhecido.",
    "import.file_refused": "O arquivo de importação foi recusado: nada a importar.",
    "import.register_changed": "O cadastro mudou desde a conferência da importação: nada foi importado.",
    "import.rows_not_confirmable": "Linhas recusadas ou inexistentes não podem ser confirmadas na importação.",
    "inspection.approved_locked": "Uma vistoria aprovada não se altera: substitui-se por outra, com motivo.",
    "inspection.failed_locked": "Uma vistoria reprovada não se altera: abre-se nova vistoria dos pendentes.",
    "inspection.replacement_open": "Já há uma vistoria em preenchimento para substituir esta.",
    "inspection.unanswered": "A vistoria tem itens sem resposta: salva-se como rascunho ou responde-se todos.",
    "inspection.vehicle_replaced": "O veículo foi substituído: só o veículo ativo do titular é vistoriado.",
    "organisation.already_left": "A saída do titular da organização já foi registrada.",
    "organisation.already_member": "O titular já é filiado à organização.",
    "photo.unknown_source": "Origem da foto desconhecida.",
    "restore.bad_signature": "A assinatura da cópia não confere: o manifesto foi alterado depois da cópia.",
    "restore.damaged_archive": "O arquivo da cópia está truncado ou corrompido (zip incompleto, CRC errado).",
    "restore.data_differs": "Os dados da cópia não conferem com o manifesto assinado: nada foi restaurado.",
    "restore.disk_refused": "O disco recusou a gravação durante a restauração: nada foi restaurado.",
    "restore.duplicate_members": "A cópia traz mais de um arquivo com o mesmo nome: foi alterada.",
    "restore.member_differs": "Um arquivo da cópia não confere com o manifesto assinado (SHA-256).",
    "restore.schema_differs": "O esquema da cópia difere do que as migrações constroem: nada foi restaurado.",
    "restore.unknown_key": "A cópia foi assinada por uma chave que esta instalação não conhece.",
    "restore.unknown_tables": "A cópia traz tabelas que as migrações do MotoDesk não criam.",
    "restore.unlisted_members": "A cópia traz arquivos que o manifesto não lista: foi alterada.",
    "restore.unsigned": "A cópia não tem assinatura nem somas de conferência (formato antigo).",
    "publish.folder": "A pasta de publicação do verificador não pôde ser criada (ou o destino não é uma pasta).",
    "restore.postgresql_only": "Uma cópia de um servidor PostgreSQL só se restaura em outro banco PostgreSQL.",
    "settings.unknown": "Configuração desconhecida.",
    "stand.already_assigned": "O titular já está designado a este ponto.",
    "stand.already_left": "O titular já saiu do ponto.",
    "tender.cpf_mismatch": "O CPF do requerente não é o do candidato convocado.",
    "tender.file_refused": "O arquivo de candidatos foi recusado pelo leitor de planilhas (diz o motivo).",
    "tender.no_visible_sheet": "A planilha de candidatos não tem nenhuma aba visível.",
    "tender.no_waiting_candidate": "Não há candidatos aguardando convocação na licitação.",
    "tender.permit_issued": "O candidato já tem permissão emitida: use as ações da permissão.",
    "tender.sheet_columns": "A planilha de candidatos não tem as colunas Classificação, CPF e Nome.",
    "user.login_confusable": "O login se confunde com outro já existente (letras parecidas): escolha outro.",
    "user.login_invalid": "Login inválido: só letras sem acento, números, ponto, hífen ou sublinhado.",
    "user.login_taken": "Já existe um usuário com esse login.",
    "tender.sheet_refused": "A planilha de candidatos tem problemas (cada linha diz o seu): nada foi importado.",
    "user.already_has_users": "O banco já tem usuários: só um administrador cria outros usuários.",
    "user.not_locked": "O usuário não está bloqueado.",
    "user.self_temporary": "Um administrador com senha provisória não a torna definitiva para si próprio.",
    "vehicle.not_in_service": "O veículo já não está no serviço (baixa ou substituição registrada).",
    "vehicle.replaced": "O veículo foi substituído: o histórico dele não se altera.",
}


def meaning(code: str) -> str:
    """The pt_BR meaning of ``code``; KeyError for a code nobody registered."""
    return CODES[code]


def code_of(exc: BaseException) -> str:
    """The stable code of an error the command line shows (``database`` for the database's own)."""
    code = getattr(exc, "code", None)
    return code if isinstance(code, str) else "database"
