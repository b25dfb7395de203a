// HTML character references: numeric ones and the named ones that matter for reading text.

const NAMED: Record<string, string> = {
  amp: "&", lt: "<", gt: ">", quot: '"', apos: "'", nbsp: "\u00a0",
  copy: "©", reg: "®", trade: "™", hellip: "…", mdash: "—", ndash: "–", minus: "−",
  lsquo: "‘", rsquo: "’", sbquo: "‚", ldquo: "“", rdquo: "”", bdquo: "„",
  laquo: "«", raquo: "»", lsaquo: "‹", rsaquo: "›", bull: "•", middot: "·", para: "¶", sect: "§",
  deg: "°", plusmn: "±", times: "×", divide: "÷", frac12: "½", frac14: "¼", frac34: "¾",
  euro: "€", pound: "£", yen: "¥", cent: "¢", curren: "¤",
  larr: "←", rarr: "→", uarr: "↑", darr: "↓", harr: "↔", lArr: "⇐", rArr: "⇒", hArr: "⇔",
  le: "≤", ge: "≥", ne: "≠", asymp: "≈", equiv: "≡", infin: "∞", sum: "∑", prod: "∏", radic: "√",
  alpha: "α", beta: "β", gamma: "γ", delta: "δ", epsilon: "ε", lambda: "λ", mu: "μ", pi: "π", sigma: "σ", omega: "ω",
  shy: "\u00ad", zwj: "\u200d", zwnj: "\u200c", ensp: "\u2002", emsp: "\u2003", thinsp: "\u2009",
  iexcl: "¡", iquest: "¿", micro: "µ", dagger: "†", Dagger: "‡", permil: "‰", prime: "′", Prime: "″",
  auml: "ä", ouml: "ö", uuml: "ü", Auml: "Ä", Ouml: "Ö", Uuml: "Ü", szlig: "ß", eacute: "é", egrave: "è",
  ecirc: "ê", aacute: "á", agrave: "à", acirc: "â", ccedil: "ç", ntilde: "ñ", oacute: "ó", uacute: "ú", iacute: "í",
  grave: "`", tilde: "˜", circ: "ˆ", check: "✓", star: "☆", hearts: "♥", spades: "♠", clubs: "♣", diams: "♦",
  lbrace: "{", rbrace: "}", lbrack: "[", rbrack: "]", lpar: "(", rpar: ")", verbar: "|", vert: "|", bsol: "\\",
  sol: "/", colon: ":", semi: ";", comma: ",", period: ".", excl: "!", quest: "?", num: "#", dollar: "$",
  percnt: "%", ast: "*", plus: "+", equals: "=", lowbar: "_", commat: "@", Hat: "^", newline: "\n", Tab: "\t",
};

/** Legacy references that browsers also accept without the trailing semicolon. */
const WITHOUT_SEMICOLON = new Set(["amp", "lt", "gt", "quot", "nbsp", "copy", "reg"]);

const REFERENCE = /&(?:#(\d{1,8})|#[xX]([0-9a-fA-F]{1,7})|([A-Za-z][A-Za-z0-9]{0,31}))(;?)/g;

function fromCodePoint(code: number): string {
  if (code === 0 || code > 0x10ffff || (code >= 0xd800 && code <= 0xdfff)) return "\ufffd";
  return String.fromCodePoint(code);
}

export function decodeEntities(text: string): string {
  if (!text.includes("&")) return text;
  return text.replace(REFERENCE, (whole, decimal?: string, hex?: string, name?: string, semicolon?: string) => {
    if (decimal !== undefined) return fromCodePoint(Number.parseInt(decimal, 10));
    if (hex !== undefined) return fromCodePoint(Number.parseInt(hex, 16));
    const value = name !== undefined ? NAMED[name] : undefined;
    if (value === undefined) return whole;
    if (semicolon === "" && !WITHOUT_SEMICOLON.has(name!)) return whole;
    return value;
  });
}
