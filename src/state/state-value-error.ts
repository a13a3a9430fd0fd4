export { StateValueError } from '../core/errors/index.js';
