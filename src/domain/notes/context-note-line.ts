/**
 * The lines Eunoe's outlets append to a reply, as they are recognized: the context note. The context filter strips
 * earlier notes from the history it plans; a reply's fingerprint (src/domain/usage/reply-fingerprint.ts) is taken
 * without them, so the proxy and the accounting outlet name one reply alike. The wording is the context feature's
 * (src/features/context/note/context-note.ts); tests format a note there and strip it here.
 */
import { stripFromReplies } from '../../core/messages/append-to-reply.js';
import type { ChatMessage } from '../../core/messages/chat-message.js';

/**
 * A context note the context filter's outlet appended (`formatContextNote` in src/features/context/note/): its own
 * line at the end of a reply (an accounting usage line may follow it).
 */
const NOTE_LINE =
  /\n{1,2}context: [\d,]+(?: → [\d,]+)? tokens · (?:all [\d,]+ messages sent|[\d,]+ of [\d,]+ messages left out(?: · [\d,]+ summarized)?)(?: · Open WebUI's summary kept \([\d,]+ tokens\))?(?: · \d+% of the prompt repeats the previous one)?(?: · [^\n]+? capped to (?:the admin's|your) budget of [\d,]+ tokens(?: \(max_cost_usd [\d.e-]+\))?)?(?: · run \S+)?(?=$|\n\n\*)/;

/** The messages with earlier context notes removed from assistant replies (`stripFromReplies`). */
export function stripContextNotes(messages: ChatMessage[]): ChatMessage[] {
  return stripFromReplies(messages, NOTE_LINE);
}
