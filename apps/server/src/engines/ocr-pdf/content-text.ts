// Text taken out of a page's content stream (`mode=redo` with the native tools): an earlier
// OCR layer is text drawn invisibly, render mode 3 (ISO 32000-1 §9.3.6), which `invisible` removes while
// visible text stays; `all` removes every text-showing operator, so the page can be drawn for tesseract
// without the text it already has (OCRmyPDF hides it the same way, Ghostscript's -dFILTERTEXT).
// Operators are read as the PDF reader reads them (§7.8.2): operands then operator, strings with nested
// parentheses and escapes, hex strings, arrays, dictionaries, comments, and inline images skipped whole.
// Everything not removed is copied byte for byte.

export type TextToRemove = 'invisible' | 'all';

const WHITESPACE = new Set([0x00, 0x09, 0x0a, 0x0c, 0x0d, 0x20]);
const DELIMITERS = new Set([...'()<>[]{}/%'].map((char) => char.charCodeAt(0)));
const INVISIBLE = 3;
const SHOWS = new Set(['Tj', 'TJ', "'", '"']);

interface Instruction {
  operator: string;
  operands: string[];
  /** The instruction's bytes in the stream, operands included. */
  start: number;
  end: number;
}

/** The end of the string opening at `at` (`(`), past its closing parenthesis. */
function stringEnd(text: string, at: number): number {
  let depth = 0;
  for (let i = at; i < text.length; i += 1) {
    const char = text[i];
    if (char === '\\') i += 1;
    else if (char === '(') depth += 1;
    else if (char === ')') {
      depth -= 1;
      if (depth === 0) return i + 1;
    }
  }
  return text.length;
}

/** After `ID`: one whitespace byte, the image's data, then `EI` between whitespace (§8.9.7). */
function inlineImageEnd(text: string, at: number): number {
  const end = /[\0\t\n\f\r ]EI(?=[\0\t\n\f\r ]|$)/g;
  end.lastIndex = at + 1;
  const found = end.exec(text);
  return found === null ? text.length : found.index + 3;
}

function* instructions(text: string): Generator<Instruction> {
  let operands: string[] = [];
  let start = 0;
  let depth = 0; // inside arrays and dictionaries, whose contents are one operand
  let i = 0;
  const code = (at: number) => text.charCodeAt(at);
  while (i < text.length) {
    const c = code(i);
    if (WHITESPACE.has(c)) {
      i += 1;
      continue;
    }
    if (operands.length === 0 && depth === 0) start = i;
    let end: number;
    if (c === 0x25 /* % */) {
      const newline = text.slice(i).search(/[\r\n]/);
      i = newline < 0 ? text.length : i + newline;
      continue;
    }
    if (c === 0x28 /* ( */) end = stringEnd(text, i);
    else if (text.startsWith('<<', i) || text.startsWith('>>', i)) {
      depth += text[i] === '<' ? 1 : -1;
      end = i + 2;
    } else if (c === 0x3c /* < */) end = text.indexOf('>', i) + 1 || text.length;
    else if (c === 0x5b /* [ */ || c === 0x5d /* ] */) {
      depth += c === 0x5b ? 1 : -1;
      end = i + 1;
    } else {
      end = i + 1;
      // A name (its `/` is a delimiter), a number or an operator: up to the next whitespace or delimiter.
      while (end < text.length && !WHITESPACE.has(code(end)) && !DELIMITERS.has(code(end))) end += 1;
    }
    const token = text.slice(i, end);
    i = end;
    const isOperator =
      depth === 0 && /^[A-Za-z'"*][A-Za-z0-9'"*]*$/.test(token) && !/^(true|false|null)$/.test(token);
    if (!isOperator) {
      operands.push(token);
      continue;
    }
    if (token === 'ID') i = inlineImageEnd(text, i);
    yield { operator: token, operands, start, end: i };
    operands = [];
  }
}

/**
 * `content` (a decoded content stream, as latin1) without the text `which` names. Keeps the line moves of
 * `'` and `"` when it removes what they show, and follows the render mode through `Tr`, `q` and `Q`
 * starting from `initialMode` (a form's is its caller's).
 */
export function withoutText(content: string, which: TextToRemove, initialMode = 0): string {
  const kept: string[] = [];
  const saved: number[] = [];
  let mode = initialMode;
  let copied = 0;
  for (const instruction of instructions(content)) {
    const { operator, operands } = instruction;
    if (operator === 'Tr') mode = Number(operands[0] ?? 0);
    else if (operator === 'q') saved.push(mode);
    else if (operator === 'Q') mode = saved.pop() ?? mode;
    if (!SHOWS.has(operator) || (which === 'invisible' && mode !== INVISIBLE)) continue;
    kept.push(content.slice(copied, instruction.start));
    if (operator === "'") kept.push('T*');
    else if (operator === '"') kept.push(`${operands[0] ?? 0} Tw ${operands[1] ?? 0} Tc T*`);
    copied = instruction.end;
  }
  kept.push(content.slice(copied));
  return kept.join('');
}
