export { writeFd } from './write-fd.js';
