"""The certificate's words in Portuguese and English: one table, no string in the templates.

The certificate is issued in Portuguese (the regulations' language) or English
(``bench report --lang``). Measurement names, methods and reasons are recorded
in English by the suites and are shown as recorded in both languages; clause
texts come from the catalogue (Portuguese original, English summary).
"""

from __future__ import annotations

from collections.abc import Callable

LANGUAGES = ("pt", "en")

STRINGS: dict[str, dict[str, str]] = {
    "title": {"pt": "Certificado de ensaio", "en": "Test certificate"},
    "subtitle": {"pt": "Ensaio de equipamento de jogo (SRIJ): verificação cláusula a cláusula",
                 "en": "Gaming equipment test (SRIJ): clause-by-clause verification"},
    "laboratory": {"pt": "Laboratório", "en": "Laboratory"},
    "operator": {"pt": "Operador", "en": "Operator"},
    "date": {"pt": "Data do ensaio", "en": "Test date"},
    "finished": {"pt": "Concluído", "en": "Finished"},
    "run": {"pt": "Ensaio (identificador)", "en": "Run (identifier)"},
    "profile": {"pt": "Perfil", "en": "Profile"},
    "software": {"pt": "Software", "en": "Software"},
    "host": {"pt": "Computador", "en": "Host"},
    "command": {"pt": "Comando", "en": "Command"},
    "resumed": {"pt": "Retomado", "en": "Resumed"},
    "times": {"pt": "vez(es)", "en": "time(s)"},
    "summary": {"pt": "Resumo", "en": "Summary"},
    "overall": {"pt": "Resultado global", "en": "Overall result"},
    "overall_PASS": {"pt": "CONFORME em todas as cláusulas ensaiadas",
                     "en": "PASS on every tested clause"},
    "overall_FAIL": {"pt": "NÃO CONFORME: pelo menos uma cláusula falhou",
                     "en": "FAIL: at least one clause failed"},
    "overall_ERROR": {"pt": "ERRO: pelo menos uma cláusula não pôde ser ensaiada por erro",
                      "en": "ERROR: at least one clause could not be tested because of an error"},
    "overall_INCOMPLETE": {"pt": "INCOMPLETO: pelo menos um ensaio previsto não chegou ao fim; "
                                 "nenhuma conformidade é declarada",
                           "en": "INCOMPLETE: at least one planned test did not finish; no compliance is stated"},
    "overall_NONE": {"pt": "Nenhuma cláusula foi ensaiada", "en": "No clause was tested"},
    "lost_games": {"pt": "Jogos perdidos quando a execução foi interrompida (registados na retoma, não contados "
                         "como resultados)",
                   "en": "Games lost when the run was killed (journalled on resume, not counted as outcomes)"},
    "integrity": {"pt": "Integridade", "en": "Integrity"},
    "chain": {"pt": "Cadeia de hashes do diário", "en": "Journal hash chain"},
    "rows": {"pt": "linhas", "en": "rows"},
    "intact": {"pt": "íntegra", "en": "intact"},
    "broken": {"pt": "QUEBRADA", "en": "BROKEN"},
    "signature": {"pt": "Assinatura", "en": "Signature"},
    "signed_with": {"pt": "assinado com a chave do laboratório", "en": "signed with the laboratory key"},
    "to_be_signed": {"pt": "a assinar com a chave do laboratório", "en": "to be signed with the laboratory key"},
    "unsigned": {"pt": "não assinado", "en": "not signed"},
    "verify_hint": {"pt": "Verificação: bench verify DIRECTÓRIO --public-key CHAVE.pub",
                    "en": "Verification: bench verify RUN_DIR --public-key KEY.pub"},
    "equipment": {"pt": "Equipamento ensaiado", "en": "Equipment under test"},
    "instruments": {"pt": "Instrumentos utilizados", "en": "Instruments used"},
    "no_instruments": {"pt": "Nenhum instrumento de laboratório no perfil.",
                       "en": "No laboratory instrument in the profile."},
    "name": {"pt": "Nome", "en": "Name"},
    "kind": {"pt": "Tipo", "en": "Kind"},
    "manufacturer": {"pt": "Fabricante", "en": "Manufacturer"},
    "model": {"pt": "Modelo", "en": "Model"},
    "serial": {"pt": "N.º de série", "en": "Serial"},
    "firmware": {"pt": "Firmware", "en": "Firmware"},
    "identity_reported": {"pt": "Identidade declarada pelo dispositivo", "en": "Identity reported by the device"},
    "identity_configured": {"pt": "Identidade no perfil", "en": "Identity in the profile"},
    "not_reported": {"pt": "não consultado neste ensaio", "en": "not queried in this run"},
    "mismatch": {"pt": "difere do perfil", "en": "differs from the profile"},
    "simulated": {"pt": "simulado", "en": "simulated"},
    "role": {"pt": "Função", "en": "Role"},
    "powers": {"pt": "alimenta", "en": "powers"},
    "measures": {"pt": "mede", "en": "measures"},
    "samples": {"pt": "Dimensões das amostras", "en": "Sample sizes"},
    "stream": {"pt": "Fluxo de observações", "en": "Observation stream"},
    "observations": {"pt": "Observações", "en": "Observations"},
    "first_last": {"pt": "Primeira / última", "en": "First / last"},
    "matrix": {"pt": "Matriz de cláusulas", "en": "Clause matrix"},
    "matrix_note": {
        "pt": "Todas as cláusulas catalogadas aplicáveis ao equipamento. CONFORME/NÃO CONFORME resultam de medições; "
              "ATESTADO: cláusula de procedimento verificada por uma pessoa (atestação registada no diário); "
              "NÃO ENSAIADO: com o motivo. Os nomes e métodos das medições são registados em inglês.",
        "en": "Every catalogued clause applicable to the equipment. PASS/FAIL follow from measurements; "
              "ATTESTED: a procedure clause checked by a person (attestation recorded in the journal); "
              "NOT TESTED: with its reason."},
    "clause": {"pt": "Cláusula", "en": "Clause"},
    "verdict": {"pt": "Veredicto", "en": "Verdict"},
    "requirement": {"pt": "Requisito", "en": "Requirement"},
    "evidence": {"pt": "Evidência", "en": "Evidence"},
    "testability": {"pt": "Verificação", "en": "Verification"},
    "testability_bench": {"pt": "bancada", "en": "bench"},
    "testability_procedure": {"pt": "procedimento", "en": "procedure"},
    "testability_n/a": {"pt": "fora do âmbito", "en": "out of scope"},
    "verdict_PASS": {"pt": "CONFORME", "en": "PASS"},
    "verdict_FAIL": {"pt": "NÃO CONFORME", "en": "FAIL"},
    "verdict_ERROR": {"pt": "ERRO", "en": "ERROR"},
    "verdict_INCOMPLETE": {"pt": "INCOMPLETO", "en": "INCOMPLETE"},
    "verdict_ATTESTED": {"pt": "ATESTADO", "en": "ATTESTED"},
    "verdict_NOT TESTED": {"pt": "NÃO ENSAIADO", "en": "NOT TESTED"},
    "measurement": {"pt": "Medição", "en": "Measurement"},
    "value": {"pt": "Valor", "en": "Value"},
    "limits": {"pt": "Limites", "en": "Limits"},
    "method": {"pt": "Método", "en": "Method"},
    "sample_size": {"pt": "n", "en": "n"},
    "p_value": {"pt": "p", "en": "p"},
    "alpha": {"pt": "α", "en": "α"},
    "power": {"pt": "Potência", "en": "Power"},
    "against": {"pt": "contra", "en": "against"},
    "recorded": {"pt": "registado", "en": "recorded"},
    "tests": {"pt": "Testes", "en": "Tests"},
    "attested_by": {"pt": "Atestado por", "en": "Attested by"},
    "at": {"pt": "em", "en": "at"},
    "see": {"pt": "ver", "en": "see"},
    "plots": {"pt": "Gráficos", "en": "Plots"},
    "plot_pockets": {"pt": "Frequência de cada casa, pela ordem da roda, com a banda esperada",
                     "en": "Pocket frequencies in wheel order with the expected band"},
    "plot_sectors": {"pt": "Estatística de sector ao longo da roda", "en": "Sector statistic along the wheel"},
    "plot_dice": {"pt": "Histograma das faces de cada dado", "en": "Die face histograms"},
    "plot_cards": {"pt": "Mapa carta × posição (resíduos padronizados)",
                   "en": "Card-by-position heat map (standardised residuals)"},
    "plot_sequential": {"pt": "Trajectória do teste sequencial e fronteiras",
                        "en": "Sequential test path and its boundaries"},
    "plot_jackpot": {"pt": "Valor do jackpot ao longo do tempo e incrementos esperados",
                     "en": "Jackpot value over time against the expected increments"},
    "plot_rtp": {"pt": "Intervalo de confiança da taxa de retorno face a 80 %",
                 "en": "RTP confidence interval against 80 %"},
    "excerpts": {"pt": "Excertos de evidência", "en": "Evidence excerpts"},
    "no_reads": {"pt": "Leituras recusadas ou em disputa", "en": "Declined or disputed reads"},
    "no_reads_note": {
        "pt": "Uma leitura insegura é recusada com o motivo, contada e nunca convertida num resultado.",
        "en": "An unsafe read is declined with its reason, counted, and never turned into an outcome."},
    "reason": {"pt": "Motivo", "en": "Reason"},
    "count": {"pt": "Contagem", "en": "Count"},
    "frames": {"pt": "Imagens", "en": "Frames"},
    "more_frames": {"pt": "outras imagens nos anexos", "en": "more frames among the attachments"},
    "wire_faults": {"pt": "Registo de linha em torno das falhas", "en": "Wire log around faults"},
    "no_faults": {"pt": "Nenhuma falha de linha registada.", "en": "No line fault logged."},
    "faults": {"pt": "falhas", "en": "faults"},
    "attachments": {"pt": "Anexos", "en": "Attachments"},
    "test": {"pt": "Teste", "en": "Test"},
    "size": {"pt": "Tamanho", "en": "Size"},
    "media_type": {"pt": "Tipo", "en": "Type"},
    "attachments_more": {"pt": "anexos no total; lista completa no manifesto assinado",
                         "en": "attachments in all; full list in the signed manifest"},
    "page": {"pt": "Página", "en": "Page"},
    "of": {"pt": "de", "en": "of"},
    "footer": {"pt": "Gerado a partir do diário de evidência do ensaio; só o diário e o directório do ensaio fazem fé.",
               "en": "Rendered from the run's evidence journal; the journal and the run directory are authoritative."},
    "counts": {"pt": "Cláusulas por veredicto", "en": "Clauses by verdict"},
}


def translator(lang: str) -> Callable[[str], str]:
    """``t(key)``: the string ``key`` in ``lang``; ValueError for an unknown language, KeyError for a key."""
    if lang not in LANGUAGES:
        raise ValueError(f"language {lang!r}: the certificate is written in {' or '.join(LANGUAGES)}")

    def t(key: str) -> str:
        try:
            return STRINGS[key][lang]
        except KeyError:
            raise KeyError(f"no certificate string {key!r}") from None

    return t
