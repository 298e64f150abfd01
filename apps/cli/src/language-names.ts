// What the OCR language codes (Tesseract's, ISO 639-2 mostly) are called, so that `--language german`
// can be answered "did you mean deu (German)?": the server lists codes only, and a person thinks in
// names. English names, and the language's own name where it is written differently.
const NAMES: Readonly<Record<string, readonly string[]>> = {
  afr: ['Afrikaans'],
  amh: ['Amharic'],
  ara: ['Arabic', 'العربية'],
  asm: ['Assamese'],
  aze: ['Azerbaijani', 'Azərbaycan'],
  aze_cyrl: ['Azerbaijani (Cyrillic)'],
  bel: ['Belarusian', 'Беларуская'],
  ben: ['Bengali', 'Bangla'],
  bod: ['Tibetan'],
  bos: ['Bosnian', 'Bosanski'],
  bre: ['Breton'],
  bul: ['Bulgarian', 'Български'],
  cat: ['Catalan', 'Català'],
  ceb: ['Cebuano'],
  ces: ['Czech', 'Čeština'],
  chi_sim: ['Chinese (Simplified)', 'Chinese', '中文'],
  chi_tra: ['Chinese (Traditional)'],
  chr: ['Cherokee'],
  cos: ['Corsican'],
  cym: ['Welsh', 'Cymraeg'],
  dan: ['Danish', 'Dansk'],
  deu: ['German', 'Deutsch'],
  div: ['Dhivehi'],
  dzo: ['Dzongkha'],
  ell: ['Greek', 'Ελληνικά'],
  eng: ['English'],
  enm: ['Middle English'],
  epo: ['Esperanto'],
  est: ['Estonian', 'Eesti'],
  eus: ['Basque', 'Euskara'],
  fao: ['Faroese'],
  fas: ['Persian', 'Farsi'],
  fil: ['Filipino'],
  fin: ['Finnish', 'Suomi'],
  fra: ['French', 'Français'],
  frk: ['Fraktur (German)'],
  frm: ['Middle French'],
  fry: ['Frisian'],
  gla: ['Scottish Gaelic'],
  gle: ['Irish', 'Gaeilge'],
  glg: ['Galician', 'Galego'],
  grc: ['Ancient Greek'],
  guj: ['Gujarati'],
  hat: ['Haitian Creole'],
  heb: ['Hebrew', 'עברית'],
  hin: ['Hindi', 'हिन्दी'],
  hrv: ['Croatian', 'Hrvatski'],
  hun: ['Hungarian', 'Magyar'],
  hye: ['Armenian'],
  iku: ['Inuktitut'],
  ind: ['Indonesian', 'Bahasa Indonesia'],
  isl: ['Icelandic', 'Íslenska'],
  ita: ['Italian', 'Italiano'],
  ita_old: ['Old Italian'],
  jav: ['Javanese'],
  jpn: ['Japanese', '日本語'],
  kan: ['Kannada'],
  kat: ['Georgian'],
  kaz: ['Kazakh'],
  khm: ['Khmer'],
  kir: ['Kyrgyz'],
  kmr: ['Kurmanji', 'Kurdish'],
  kor: ['Korean', '한국어'],
  lao: ['Lao'],
  lat: ['Latin'],
  lav: ['Latvian', 'Latviešu'],
  lit: ['Lithuanian', 'Lietuvių'],
  ltz: ['Luxembourgish'],
  mal: ['Malayalam'],
  mar: ['Marathi'],
  mkd: ['Macedonian'],
  mlt: ['Maltese'],
  mon: ['Mongolian'],
  mri: ['Maori'],
  msa: ['Malay', 'Bahasa Melayu'],
  mya: ['Burmese'],
  nep: ['Nepali'],
  nld: ['Dutch', 'Nederlands'],
  nor: ['Norwegian', 'Norsk'],
  oci: ['Occitan'],
  ori: ['Odia', 'Oriya'],
  pan: ['Punjabi'],
  pol: ['Polish', 'Polski'],
  por: ['Portuguese', 'Português'],
  pus: ['Pashto'],
  que: ['Quechua'],
  ron: ['Romanian', 'Română'],
  rus: ['Russian', 'Русский'],
  san: ['Sanskrit'],
  sin: ['Sinhala'],
  slk: ['Slovak', 'Slovenčina'],
  slv: ['Slovenian', 'Slovenščina'],
  snd: ['Sindhi'],
  spa: ['Spanish', 'Español'],
  spa_old: ['Old Spanish'],
  sqi: ['Albanian', 'Shqip'],
  srp: ['Serbian', 'Српски'],
  srp_latn: ['Serbian (Latin)', 'Srpski'],
  sun: ['Sundanese'],
  swa: ['Swahili', 'Kiswahili'],
  swe: ['Swedish', 'Svenska'],
  syr: ['Syriac'],
  tam: ['Tamil'],
  tat: ['Tatar'],
  tel: ['Telugu'],
  tgk: ['Tajik'],
  tha: ['Thai', 'ไทย'],
  tir: ['Tigrinya'],
  ton: ['Tongan'],
  tur: ['Turkish', 'Türkçe'],
  uig: ['Uyghur'],
  ukr: ['Ukrainian', 'Українська'],
  urd: ['Urdu'],
  uzb: ['Uzbek', "O'zbek"],
  uzb_cyrl: ['Uzbek (Cyrillic)'],
  vie: ['Vietnamese', 'Tiếng Việt'],
  yid: ['Yiddish'],
  yor: ['Yoruba'],
};

/** `deu (German)`, or the code alone for one without a known name. */
export function withName(code: string): string {
  const [name] = NAMES[code] ?? [];
  return name === undefined ? code : `${code} (${name})`;
}

/** Lower case without accents: `Français` and `francais` are the same word to a person typing it. */
function plain(text: string): string {
  return text
    .normalize('NFD')
    .replace(/\p{Mn}/gu, '')
    .toLowerCase();
}

/** The codes among `codes` whose name is `word`, or begins with it (three letters at least). */
export function codesNamed(word: string, codes: readonly string[]): string[] {
  const given = plain(word);
  return codes.filter((code) =>
    (NAMES[code] ?? []).some((name) => {
      const known = plain(name);
      return known === given || (given.length >= 3 && known.startsWith(given));
    }),
  );
}

/** Every name known for `codes`, with its code, for "did you mean" by spelling (`germna`). */
export function namesOf(codes: readonly string[]): { name: string; code: string }[] {
  return codes.flatMap((code) => (NAMES[code] ?? []).map((name) => ({ name: plain(name), code })));
}
