// The watchdog's second half (tool-reaper.ts): run once the process that started it has died, with that
// process's mark as its argument; kills every process still carrying the mark, then exits.
import { killMarked } from './marked-processes.js';

const mark = process.argv[2];
if (mark !== undefined && mark !== '') await killMarked(mark);
