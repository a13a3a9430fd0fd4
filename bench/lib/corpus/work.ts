import type { Topic } from './topic.js';

const managers = ['Priya', 'Tomasz', 'Henrike', 'Dwayne', 'Aiko', 'Lucas'];
const projects = ['Project Heron', 'the Atlas migration', 'Project Lantern', 'the Orion dashboard', 'Project Quill'];
const languages = ['Rust', 'Kotlin', 'Elixir', 'Go', 'Scala'];

/** Work: manager, projects, salary, promotions. */
export const work: Topic = {
  name: 'work',
  facts: [
    (rng) => {
      const manager = rng.pick(managers);
      return {
        statement: `Reorg happened. My new team lead is ${manager}, who came over from the payments group — seems sharp, a little intense.`,
        answer: manager,
        question: 'Who became my boss after the reorg?',
        paraphrase: 'Who became my boss after the restructuring?',
      };
    },
    (rng) => {
      const project = rng.pick(projects);
      return {
        statement: `I've been put in charge of ${project}; it's the first time I'm leading something end to end at this company.`,
        answer: project,
        question: 'Which project am I leading at work?',
        paraphrase: 'Which initiative do I head up?',
      };
    },
    (rng) => {
      const language = rng.pick(languages);
      return {
        statement: `The backend rewrite is going to be in ${language}. I have to learn it from scratch over the next month.`,
        answer: language,
        question: 'What programming language does the rewrite use?',
        paraphrase: 'What language will I need to pick up for the new codebase?',
      };
    },
  ],
  events: [
    () => ({
      statement: 'I gave the quarterly presentation to the leadership team today and it went better than expected!',
      marker: 'quarterly presentation',
      question: 'When did I give the quarterly talk to the executives?',
    }),
    () => ({
      statement: 'HR just confirmed it: my promotion to senior engineer is official as of today.',
      marker: 'promotion to senior engineer',
      question: 'On which date did I become a senior engineer?',
    }),
  ],
  pairs: [
    (rng) => {
      const oldSalary = rng.pick([78, 85, 92, 101]);
      const raise = rng.pick([6, 9, 12, 15]);
      return {
        first: `For context, my salary is ${oldSalary}k a year right now, and I haven't had a raise in two years.`,
        firstAnswer: `${oldSalary}k`,
        second: `The review went well — they're bumping my pay by ${raise}% starting next quarter.`,
        secondAnswer: `${raise}%`,
        question: 'After the pay bump, roughly what will my annual salary be?',
      };
    },
  ],
  advice: [
    (rng) => {
      const book = rng.pick(["The Manager's Path", 'Crucial Conversations', 'An Elegant Puzzle', 'Radical Candor']);
      return {
        ask: "I'm leading people for the first time. Is there one book I should read?",
        reply: `If you only read one, make it ${book}. It is practical, short enough to finish in a week, and it covers the awkward conversations new leads tend to avoid.`,
        answer: book,
        question: 'Which leadership book did you tell me to read?',
      };
    },
  ],
  chatter: [
    {
      ask: () => 'How do I prepare for a one-on-one with a new manager?',
      answer:
        'For a first one-on-one with a new manager, bring your current priorities, one thing you need help with, and ask how they prefer updates.',
    },
    {
      ask: () => "My team lead wants weekly status reports. What is a good format that doesn't take forever?",
      answer: 'Keep the weekly status report to three headings: done, next, blocked, with one line per item.',
    },
    {
      ask: () => 'Any advice on asking for a raise when the company is cutting costs?',
      answer:
        'When the company is cutting costs, ask for the raise with evidence of impact and be open to a delayed date or a title change.',
    },
    {
      ask: (rng) => `Is ${rng.pick(languages)} hard to pick up if I mostly know Python and TypeScript?`,
      answer:
        'Coming from Python and TypeScript, the syntax is quick to learn; the type system and tooling take a few weeks of real use.',
    },
    {
      ask: () => 'How do I say no to extra projects without looking lazy?',
      answer:
        'Say no to extra projects by asking which current priority should slip, which shows you are protecting commitments.',
    },
    {
      ask: () => 'What should go into a presentation for leadership about a delayed project?',
      answer:
        'A delayed-project update for leadership should open with the new date, the cause in one sentence, and the decision you need.',
    },
    {
      ask: () => 'I have three meetings back to back every Tuesday. How do people stay focused?',
      answer:
        'With back-to-back meetings, keep a five-minute buffer between them and write the one outcome you need from each beforehand.',
    },
    {
      ask: () => 'What is a reasonable way to estimate a migration project I have never done before?',
      answer:
        'Estimate an unfamiliar migration by migrating one small component first and extrapolating, plus a generous buffer.',
    },
    {
      ask: () => 'How can I give feedback to a colleague who keeps interrupting in meetings?',
      answer:
        'Talk to the colleague privately, describe one specific meeting, and explain the effect the interruptions had.',
    },
    {
      ask: () => 'Should I mention the promotion timeline in my next review or wait for my boss to bring it up?',
      answer:
        'Raise the promotion timeline yourself in the review; managers expect it, and it lets you agree on concrete criteria.',
    },
    {
      ask: () => 'My boss keeps changing priorities since the reorg. How do I push back?',
      answer:
        'When priorities shift after a reorg, ask your boss to rank the competing tasks explicitly and confirm the order in writing.',
    },
    {
      ask: () => 'Everyone at work says the rewrite will take a year. How do I plan my own learning around it?',
      answer:
        'Plan learning around the rewrite in small milestones: one tutorial project first, then a real ticket in the new codebase.',
    },
    {
      ask: () => 'Any tips for a quarterly review meeting with executives?',
      answer:
        'For a quarterly meeting with executives, lead with three numbers, one risk and one decision you need from them.',
    },
    {
      ask: () => 'What does a senior engineer do differently from a mid-level one?',
      answer:
        'A senior engineer is expected to shape the technical direction, unblock others and own outcomes beyond their own tasks.',
    },
    {
      ask: () => 'Is it normal for a pay bump to be smaller than the salary increase of new hires?',
      answer:
        'Unfortunately yes: salary for new hires often tracks the market faster than internal raises, which is worth raising in your review.',
    },
    {
      ask: () => 'Is there a good book on leading a project for the first time?',
      answer:
        'Books on project leadership help, but pairing one with a mentor who has led a similar project teaches more.',
    },
  ],
  replies: [
    'Come to the first one-on-one with a short list of questions about priorities and how your manager likes to communicate.',
    'A status report works best in three parts: what was done, what is next, and what is blocked.',
    'When asking for a raise, anchor the conversation in concrete results and the market rate for your role.',
    'Learning a new language is much faster when you rebuild something small you already know well.',
    'Saying no is easier when you tie it to current priorities: ask which existing task should move to make room.',
    'Executives want the decision they need to make first, then the context; put the ask on the first slide.',
    'Blocking focus time in your calendar and batching small tasks can make meeting-heavy days more manageable.',
    'Break an unfamiliar estimate into spikes: time-box an investigation first, then estimate the remaining work.',
    'Feedback lands better when it is specific, private, and about the behaviour rather than the person.',
    'It is reasonable to ask your manager directly what a promotion would require and by when.',
  ],
};
