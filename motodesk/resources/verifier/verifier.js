// The public badge verifier of MotoDesk (Lei nº 4.883/2017, Art. 13, VI).
//
// The badge's QR code opens this page as  <address>#MD1.<payload>.<signature>.  The fragment never
// leaves the phone (browsers do not send it to the server). The page checks the Ed25519 signature with
// the public keys in keys.json -- with the browser's own WebCrypto, or with the vendored, pinned
// @noble/ed25519 where the browser has no Ed25519 -- and then the signed status list status.json
// (suspended, revoked, cancelled permits; deputies; the copy in use of reprinted badges), fetched when
// online and kept in localStorage for offline use. Token format: motodesk/printing/token.py.
//
// It fails closed: a genuine badge reads VÁLIDO only against a genuine, current status list -- signed
// by a key of keys.json (the public keys published with this page), issued at most FRESH_HOURS ago and
// not later than CLOCK_SKEW_MS from now. A list older than the one this phone already keeps is refused
// (a replay) and the kept one is used. Without such a list the verdict is NÃO CONFIRMADO, with the
// reason, while the badge's own signature is still shown as genuine.

const PREFIX = "MD1.";
const STATUS_PREFIX = new TextEncoder().encode("MDS1.");
const STORAGE_KEY = "motodesk-verificador-situacao";
const TIME_ZONE = "America/Sao_Paulo";
const FRESH_HOURS = 96; // a list older than this no longer confirms a badge (a long weekend without publication)
const OLD_LIST_HOURS = 36; // older than this, the list's age is shown as a warning
const CLOCK_SKEW_MS = 5 * 60_000; // a list dated later than this from now is refused
const NOBLE = "./vendor/noble-ed25519-3.2.0.js";
const SERVICES = { MT: "Mototáxi", MB: "Motoboy", MF: "Moto-frete" };

const VERDICTS = {
  valid: "VÁLIDO",
  expired: "VENCIDO",
  suspended: "SUSPENSO",
  revoked: "CASSADO",
  cancelled: "CANCELADO",
  superseded: "SUBSTITUÍDO",
  forged: "FALSIFICADO",
  unconfirmed: "NÃO CONFIRMADO",
  "not-a-badge": "NÃO É UM CRACHÁ",
};

let engine = null; // "webcrypto" | "noble", the first that verified

// --- bytes -----------------------------------------------------------------------------------

const B32 = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";

function b32encode(bytes) {
  let out = "", bits = 0, value = 0;
  for (const byte of bytes) {
    value = (value << 8) | byte;
    bits += 8;
    while (bits >= 5) {
      out += B32[(value >>> (bits - 5)) & 31];
      bits -= 5;
    }
    value &= (1 << bits) - 1; // only the bits not yet written
  }
  if (bits > 0) out += B32[(value << (5 - bits)) & 31];
  return out;
}

/** Strict decoding, as the Python side: only the canonical upper-case text of some bytes. */
function b32decode(text) {
  if (!/^[A-Z2-7]+$/.test(text) || [1, 3, 6].includes(text.length % 8)) throw new Error("base32");
  const out = [];
  let bits = 0, value = 0;
  for (const ch of text) {
    value = ((value << 5) | B32.indexOf(ch)) & 0xffff;
    bits += 5;
    if (bits >= 8) {
      out.push((value >>> (bits - 8)) & 255);
      bits -= 8;
    }
  }
  const bytes = new Uint8Array(out);
  if (b32encode(bytes) !== text) throw new Error("base32 not canonical");
  return bytes;
}

function b64decode(text) {
  const raw = atob(text);
  return Uint8Array.from(raw, (c) => c.charCodeAt(0));
}

function concat(a, b) {
  const out = new Uint8Array(a.length + b.length);
  out.set(a, 0);
  out.set(b, a.length);
  return out;
}

// --- Ed25519 ---------------------------------------------------------------------------------

async function verifyWebCrypto(rawKey, signature, message) {
  const key = await crypto.subtle.importKey("raw", rawKey, { name: "Ed25519" }, false, ["verify"]);
  return crypto.subtle.verify({ name: "Ed25519" }, key, signature, message);
}

async function verifyNoble(rawKey, signature, message) {
  const ed = await import(NOBLE);
  return ed.verifyAsync(signature, message, rawKey, { zip215: false });
}

/** Whether signature is valid for message under rawKey: WebCrypto first, noble where it has no Ed25519. */
async function ed25519Verify(rawKey, signature, message) {
  if (engine !== "noble") {
    try {
      const ok = await verifyWebCrypto(rawKey, signature, message);
      engine = "webcrypto";
      return ok;
    } catch (error) {
      if (!(error instanceof DOMException) && !(error instanceof TypeError)) throw error;
      engine = "noble"; // no Ed25519 in this browser's WebCrypto
    }
  }
  try {
    return await verifyNoble(rawKey, signature, message);
  } catch (error) {
    return false; // a malformed key or signature point
  }
}

// --- dates -----------------------------------------------------------------------------------

function todayISO() {
  // "en-CA" formats as YYYY-MM-DD; the day of Patrocínio, not of the phone's time zone.
  return new Intl.DateTimeFormat("en-CA", { timeZone: TIME_ZONE, year: "numeric", month: "2-digit", day: "2-digit" })
    .format(new Date());
}

function showDay(iso) {
  const [y, m, d] = iso.split("-");
  return `${d}/${m}/${y}`;
}

function showMoment(date) {
  const parts = Object.fromEntries(new Intl.DateTimeFormat("pt-BR", {
    timeZone: TIME_ZONE, year: "numeric", month: "2-digit", day: "2-digit", hour: "2-digit", minute: "2-digit",
    hourCycle: "h23",
  }).formatToParts(date).map((p) => [p.type, p.value]));
  return `${parts.day}/${parts.month}/${parts.year} ${parts.hour}:${parts.minute}`;
}

function age(date) {
  const hours = Math.floor((Date.now() - date.getTime()) / 3_600_000);
  if (hours < 1) return "há menos de 1 hora";
  if (hours < 24) return `há ${hours} ${hours === 1 ? "hora" : "horas"}`;
  const days = Math.floor(hours / 24);
  return `há ${days} ${days === 1 ? "dia" : "dias"}`;
}

// --- the badge's token -----------------------------------------------------------------------

function tokenFromLocation() {
  let text = location.hash.slice(1);
  try {
    text = decodeURIComponent(text);
  } catch (error) {
    // keep it raw: it will not verify
  }
  return text.trim();
}

const PAYLOAD = /^([^|]{1,40})\|([0-9a-f]{10})\|([0-9]{8})\|([1-9][0-9]{0,3})\|([TP])(?:\|(MT|MB|MF)\|([A-Z0-9-]{0,10})\|([0-9]{6})\|([^|]{1,80}))?$/u;

function parseClaim(bytes) {
  const text = new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  const m = PAYLOAD.exec(text);
  if (!m) return null;
  const [year, month, day] = [m[3].slice(0, 4), m[3].slice(4, 6), m[3].slice(6)];
  const check = new Date(Date.UTC(+year, +month - 1, +day));
  if (+year < 1 || check.getUTCFullYear() !== +year || check.getUTCMonth() !== +month - 1 || check.getUTCDate() !== +day) {
    return null;
  }
  return {
    permit: m[1], digest: m[2], validUntil: `${year}-${month}-${day}`, issue: +m[4],
    kind: m[5] === "T" ? "titular" : "preposto",
    service: m[6] || m[1].slice(0, 2), plate: m[7], cpfMiddle: m[8], name: m[9],
    printed: m[6] !== undefined,
  };
}

/** {claim} for a genuine badge, {forged: true} for a broken one, {notABadge: true} for anything else. */
async function checkToken(text, keys) {
  if (text.slice(0, 4).toUpperCase() !== PREFIX) return { notABadge: true };
  if (text.length > 600 || !/^[\x21-\x7e]+$/.test(text)) return { forged: true };
  if (text === text.toLowerCase()) text = text.toUpperCase(); // a scanner with Caps Lock on
  const parts = text.split(".");
  if (parts.length !== 3 || parts[0] + "." !== PREFIX) return { forged: true };
  let payload, signature;
  try {
    payload = b32decode(parts[1]);
    signature = b32decode(parts[2]);
  } catch (error) {
    return { forged: true };
  }
  if (signature.length !== 64) return { forged: true };
  const message = new TextEncoder().encode(PREFIX + parts[1]);
  for (const key of keys) {
    if (await ed25519Verify(key.raw, signature, message)) {
      let claim = null;
      try {
        claim = parseClaim(payload);
      } catch (error) {
        claim = null;
      }
      return claim ? { claim, keyId: key.id } : { forged: true };
    }
  }
  return { forged: true };
}

// --- keys and the status list ----------------------------------------------------------------

async function loadKeys() {
  const response = await fetch("keys.json", { cache: "no-cache" });
  if (!response.ok) throw new Error(`keys.json: ${response.status}`);
  const document = await response.json();
  if (document.format !== "motodesk-keys/1" || !Array.isArray(document.keys)) throw new Error("keys.json");
  return document.keys.map((k) => ({ id: String(k.id), raw: b64decode(k.ed25519), current: !!k.current }))
    .filter((k) => k.raw.length === 32);
}

/** {list} if the envelope is signed by one of the page's keys; otherwise {problem}, why not (pt_BR). */
async function openStatus(envelopeText, keys) {
  const damaged = { problem: "não é uma lista de situação (arquivo danificado ou trocado)" };
  let envelope;
  try {
    envelope = JSON.parse(envelopeText);
  } catch (error) {
    return damaged;
  }
  if (!envelope || envelope.format !== "motodesk-status-signed/1" || typeof envelope.body !== "string"
      || typeof envelope.signature !== "string") {
    return damaged;
  }
  let body, signature;
  try {
    body = b64decode(envelope.body);
    signature = b64decode(envelope.signature);
  } catch (error) {
    return damaged;
  }
  if (signature.length !== 64) return damaged;
  // Only a key this page ships with (keys.json), named by the envelope: never a key the list brings.
  const key = keys.find((k) => k.id === envelope.key_id);
  if (!key) return { problem: "foi assinada com uma chave que não é a da Prefeitura" };
  if (!(await ed25519Verify(key.raw, signature, concat(STATUS_PREFIX, body)))) {
    return { problem: "a assinatura não confere (a lista foi alterada depois de assinada)" };
  }
  let list;
  try {
    list = JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(body));
  } catch (error) {
    return damaged;
  }
  if (!list || list.format !== "motodesk-status/1" || typeof list.issued_at !== "string") return damaged;
  const issued = new Date(list.issued_at);
  if (Number.isNaN(issued.getTime())) return damaged;
  return { list: { ...list, issued, permits: list.permits || {}, deputies: list.deputies || {}, copies: list.copies || {} } };
}

function stored() {
  try {
    return localStorage.getItem(STORAGE_KEY);
  } catch (error) {
    return null;
  }
}

function store(text) {
  try {
    localStorage.setItem(STORAGE_KEY, text);
  } catch (error) {
    // private browsing or full storage: the list is used for this check only
  }
}

function forget() {
  try {
    localStorage.removeItem(STORAGE_KEY);
  } catch (error) {
    // nothing kept
  }
}

function inFuture(list) {
  return list.issued.getTime() > Date.now() + CLOCK_SKEW_MS;
}

function futureProblem(list) {
  return `está datada no futuro (${showMoment(list.issued)}): confira a data e a hora deste aparelho`;
}

/**
 * The newest genuine list this phone may trust:
 * {list, source: "online" | "saved" | null, current, reason, warnings}. `current` is whether it can
 * confirm a badge (fresh enough); `reason` says why not; `warnings` are what was refused and why.
 */
async function loadStatus(keys) {
  let fetched = null, fetchedText = null, fetchProblem = null, missing = false, offline = false;
  const warnings = [];
  try {
    const response = await fetch("status.json", { cache: "no-store" });
    if (response.ok) {
      const text = await response.text();
      const opened = await openStatus(text, keys);
      if (opened.list && inFuture(opened.list)) {
        fetchProblem = futureProblem(opened.list);
      } else if (opened.list) {
        fetched = opened.list;
        fetchedText = text;
      } else {
        fetchProblem = opened.problem;
      }
    } else {
      fetchProblem = `não foi encontrada no site (erro ${response.status})`;
      missing = true;
    }
  } catch (error) {
    offline = true;
  }
  const savedText = stored();
  let saved = null;
  if (savedText) {
    const opened = await openStatus(savedText, keys);
    if (opened.list && !inFuture(opened.list)) saved = opened.list;
    else forget(); // a kept list that no longer verifies, or dated ahead, must not stick on this phone
  }
  if (missing) warnings.push(`A lista de situação ${fetchProblem}.`);
  else if (fetchProblem) warnings.push(`A lista de situação recebida agora ${fetchProblem}: foi recusada.`);
  let list = null, source = null;
  if (fetched && saved && fetched.issued < saved.issued) {
    warnings.push(`A lista de situação recebida (de ${showMoment(fetched.issued)}) é mais antiga que a já guardada `
      + `neste aparelho (de ${showMoment(saved.issued)}): foi recusada, pode ser uma lista antiga reapresentada.`);
    list = saved;
    source = "saved";
  } else if (fetched) {
    list = fetched;
    source = "online";
  } else if (saved) {
    list = saved;
    source = "saved";
  }
  if (source === "online") store(fetchedText);
  let current = false, reason = null;
  if (!list) {
    reason = fetchProblem ? `a lista de situação publicada ${fetchProblem}`
      : offline ? "não há conexão e este aparelho não guarda nenhuma lista de situação"
        : "não há lista de situação";
  } else if (Date.now() - list.issued.getTime() > FRESH_HOURS * 3_600_000) {
    reason = `a lista de situação mais recente disponível é de ${showMoment(list.issued)}, ${age(list.issued)}, `
      + `mais antiga que o limite de ${FRESH_HOURS / 24} dias`;
  } else {
    current = true;
  }
  return { list, source, current, reason, warnings, offline };
}

// --- the verdict -----------------------------------------------------------------------------

function judge(claim, list, today) {
  const instrument = claim.service === "MT" ? "permissão" : "autorização";
  if (list) {
    const permit = list.permits[claim.permit];
    if (permit) {
      const on = permit.on ? ` em ${showDay(permit.on)}` : "";
      if (permit.state === "revoked") {
        return ["revoked", `A ${instrument} ${claim.permit} foi cassada${on} (Art. 34, IV). Este crachá não vale.`];
      }
      if (permit.state === "cancelled") {
        return ["cancelled", `A ${instrument} ${claim.permit} foi cancelada${on}. Este crachá não vale.`];
      }
      if (permit.state === "suspended" && (!permit.until || today < permit.until)) {
        const until = permit.until ? ` até ${showDay(permit.until)}` : "";
        return ["suspended", `A ${instrument} ${claim.permit} está suspensa${until} (Art. 34, III): `
          + "o serviço não pode ser prestado."];
      }
      if (permit.state === "expired") {
        return ["expired", `O prazo da ${instrument} ${claim.permit} terminou${on} (Art. 6º).`];
      }
    }
    if (claim.kind === "preposto") {
      const deputy = list.deputies[`${claim.permit}|${claim.digest}`];
      if (deputy && deputy.state === "revoked") {
        return ["revoked", `O registro deste preposto de ${claim.permit} foi cassado (Art. 34, IV).`];
      }
      if (deputy && deputy.state === "suspended" && (!deputy.until || today < deputy.until)) {
        return ["suspended", `Este preposto de ${claim.permit} está suspenso até ${showDay(deputy.until)} `
          + "(Art. 34, III): não pode conduzir."];
      }
      if (deputy && deputy.state === "unlinked") {
        return ["cancelled", `Este preposto foi desvinculado de ${claim.permit} (Art. 14): o crachá não vale mais.`];
      }
    }
    const copyKey = claim.kind === "titular" ? `${claim.permit}|T` : `${claim.permit}|P|${claim.digest}`;
    const current = list.copies[copyKey];
    if (current && claim.issue < current) {
      return ["superseded", `Este crachá é a ${claim.issue}ª via; a via em uso é a ${current}ª. `
        + "Uma via anterior (perdida, roubada ou substituída) não vale mais."];
    }
  }
  if (claim.validUntil < today) {
    return ["expired", `Crachá vencido em ${showDay(claim.validUntil)}: o registro deve ser renovado `
      + "anualmente (Art. 4º, § 1º)."];
  }
  const who = claim.kind === "titular" ? "titular" : "preposto";
  return ["valid", `Crachá autêntico (${who}) da ${instrument} ${claim.permit}, ${claim.issue}ª via, `
    + `válido até ${showDay(claim.validUntil)}.`];
}

// --- the page --------------------------------------------------------------------------------

const $ = (id) => document.getElementById(id);

function showVerdict(kind, explanation) {
  const box = $("verdict");
  box.className = `verdict ${kind}`;
  $("verdict-text").textContent = kind === "waiting" ? "VERIFICANDO…" : VERDICTS[kind];
  $("explanation").textContent = explanation;
  document.body.dataset.verdict = kind;
}

function field(id, value) {
  const cell = $(id);
  cell.textContent = value || "não consta deste crachá";
  cell.classList.toggle("missing", !value);
}

function showClaim(claim) {
  field("f-service", SERVICES[claim.service] || claim.service);
  $("f-permit-label").textContent = claim.service === "MT" ? "Permissão nº" : "Autorização nº";
  field("f-permit", claim.permit + (claim.kind === "preposto" ? " (preposto)" : ""));
  field("f-plate", claim.printed ? (claim.plate || "—") : null);
  field("f-name", claim.name);
  field("f-valid", showDay(claim.validUntil));
  field("f-cpf", claim.cpfMiddle ? `***.${claim.cpfMiddle.slice(0, 3)}.${claim.cpfMiddle.slice(3)}-**` : null);
  $("details").hidden = false;
  $("compare").hidden = false;
}

function hideClaim() {
  $("details").hidden = true;
  $("compare").hidden = true;
}

function showStatus(status) {
  const box = $("status");
  const lines = [];
  let warn = false;
  if (status.list) {
    const when = `Lista de situação de ${showMoment(status.list.issued)}, ${age(status.list.issued)}`;
    lines.push(status.source === "online" ? `${when}.`
      : status.offline ? `${when} (sem conexão: usada a última lista guardada neste aparelho).`
        : `${when} (usada a lista guardada neste aparelho).`);
    if (!status.current) {
      lines.push(`Lista antiga demais (limite de ${FRESH_HOURS / 24} dias): não confirma que um crachá vale.`);
      warn = true;
    } else if (Date.now() - status.list.issued.getTime() > OLD_LIST_HOURS * 3_600_000) {
      lines.push("Lista antiga: suspensões e cassações recentes podem não aparecer.");
      warn = true;
    }
  } else {
    lines.push("Sem lista de situação neste aparelho: suspensão, cassação e substituição da via não foram "
      + "conferidas. Abra esta página com internet para baixá-la.");
    warn = true;
  }
  for (const warning of status.warnings) {
    lines.push(warning);
    warn = true;
  }
  box.textContent = lines.join(" ");
  box.classList.toggle("warn", warn);
  document.body.dataset.statusSource = status.source || "none";
  document.body.dataset.statusCurrent = status.current ? "1" : "0";
}

/** A genuine badge's verdict when no current list can confirm it: never VÁLIDO. */
function unconfirmed(claim, reason) {
  const instrument = claim.service === "MT" ? "permissão" : "autorização";
  const who = claim.kind === "titular" ? "titular" : "preposto";
  return ["unconfirmed", `A assinatura do crachá é autêntica (${who} da ${instrument} ${claim.permit}, `
    + `${claim.issue}ª via, válido até ${showDay(claim.validUntil)}), mas não foi possível confirmar a situação `
    + `atual: ${reason}. Não se sabe se a ${instrument} foi suspensa ou cassada; na dúvida, confirme com a SESTRAN.`];
}

async function run() {
  const token = tokenFromLocation();
  hideClaim();
  $("status").textContent = "";
  if (!token) {
    showVerdict("not-a-badge", "Nenhum código lido. Aponte a câmera do celular para o código QR no verso do crachá.");
    document.body.dataset.ready = "1";
    return;
  }
  showVerdict("waiting", "Aguarde: conferindo a assinatura do crachá neste aparelho.");
  if (!globalThis.crypto || !crypto.subtle) {
    // Outside https the browser offers no WebCrypto (nor the SHA-512 @noble/ed25519 needs): say so
    // rather than call a genuine badge forged.
    showVerdict("waiting", "Não é possível conferir o crachá nesta página: abra-a pelo endereço https:// "
      + "impresso no código QR.");
    document.body.dataset.ready = "1";
    return;
  }
  let keys;
  try {
    keys = await loadKeys();
  } catch (error) {
    showVerdict("waiting", "Não foi possível carregar as chaves de verificação. Abra esta página com internet.");
    document.body.dataset.ready = "1";
    return;
  }
  const result = await checkToken(token, keys);
  if (result.notABadge) {
    showVerdict("not-a-badge", "Este código não é um crachá do MotoDesk da Prefeitura de Patrocínio.");
  } else if (result.forged) {
    showVerdict("forged", "A assinatura deste código não confere: o crachá foi falsificado ou alterado. "
      + "Não embarque e avise a SESTRAN.");
  } else {
    const status = await loadStatus(keys);
    let [kind, explanation] = judge(result.claim, status.list, todayISO());
    if (kind === "valid" && !status.current) [kind, explanation] = unconfirmed(result.claim, status.reason);
    showVerdict(kind, explanation);
    showClaim(result.claim);
    showStatus(status);
  }
  $("engine").textContent = engine === "noble"
    ? "Assinatura conferida com @noble/ed25519 3.2.0 (o navegador não tem Ed25519)."
    : "Assinatura conferida com a criptografia do próprio navegador (WebCrypto).";
  document.body.dataset.engine = engine || "";
  document.body.dataset.ready = "1";
}

function start() {
  document.body.dataset.ready = "";
  run().catch((error) => {
    showVerdict("waiting", `Erro ao verificar: ${error}`);
    document.body.dataset.ready = "1";
  });
}

window.addEventListener("hashchange", start);
if ("serviceWorker" in navigator && window.isSecureContext) {
  navigator.serviceWorker.register("sw.js").catch(() => {});
}
start();
