import { getEncoding, type Tiktoken } from 'js-tiktoken';

let encoder: Tiktoken | undefined;

/** The plain js-tiktoken o200k_base encoder, loaded once (about a second the first time). */
export function rawO200k(): Tiktoken {
  encoder ??= getEncoding('o200k_base');
  return encoder;
}
