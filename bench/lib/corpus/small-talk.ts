/** Topic-free user lines: acknowledgements, greetings, filler. */
export const smallTalkUser: readonly string[] = [
  'Thanks, that helps!',
  'haha ok',
  'Great, thank you.',
  'Makes sense.',
  'ok cool',
  'Perfect, appreciate it.',
  "Hmm, I'll think about it.",
  'Got it.',
  'Nice, thanks!',
  'lol fair enough',
  'Sounds good.',
  "Interesting, I didn't know that.",
];

/** Topic-free assistant replies to small talk. */
export const smallTalkAssistant: readonly string[] = [
  "You're welcome! Let me know if anything else comes up.",
  'Happy to help.',
  'Anytime — good luck with it!',
  'Glad that was useful.',
  'Of course. Feel free to come back to it later.',
  'No problem at all.',
];

/** Session openers; `{date}` is replaced by the session's date. */
export const openers: readonly string[] = [
  "Hi again! It's {date} today. Got a few things on my mind.",
  'Morning — {date}. Quick questions before work.',
  'Hey, back again. Today is {date}.',
  'Evening! {date}, long day.',
  'Hello! It is {date}. Hope you remember our chats.',
];

/** Assistant replies to a session opener. */
export const openerReplies: readonly string[] = [
  'Welcome back! What would you like to talk about?',
  'Good to see you again. How can I help today?',
  "Hi! I'm here — what's on your mind?",
];
