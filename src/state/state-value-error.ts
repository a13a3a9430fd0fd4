export { StateValueError } from '../errors/index.js';
