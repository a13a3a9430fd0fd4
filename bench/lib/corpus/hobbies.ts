import type { Topic } from './topic.js';

const songs = ['Blackbird', 'Wonderwall', 'Hallelujah', 'Dust in the Wind', 'Fast Car'];
const teachers = ['Mateo', 'Ruth', 'Oskar', 'Yasmin', 'Declan'];
const books = ['Piranesi', 'The Overstory', 'Station Eleven', 'Pachinko', 'A Gentleman in Moscow'];

/** Hobbies: guitar, book club. */
export const hobbies: Topic = {
  name: 'hobbies',
  facts: [
    (rng) => {
      const song = rng.pick(songs);
      return {
        statement: `My guitar goal for this year is to play ${song} start to finish without looking at my hands.`,
        answer: song,
        question: 'Which song am I trying to learn on guitar?',
        paraphrase: 'Which tune am I practising until I know it by heart?',
      };
    },
    (rng) => {
      const teacher = rng.pick(teachers);
      return {
        statement: `Found a teacher for Saturday lessons, ${teacher}. He's patient and doesn't make me play scales for an hour.`,
        answer: teacher,
        question: 'Who gives me my weekend music lessons?',
        paraphrase: 'Who is my instructor on Saturdays?',
      };
    },
    (rng) => {
      const book = rng.pick(books);
      return {
        statement: `Book club picked ${book} for next month. I'm the one who has to lead the discussion.`,
        answer: book,
        question: 'What novel is my book club doing next?',
        paraphrase: 'Which title is my reading circle tackling soon?',
      };
    },
  ],
  events: [
    () => ({
      statement:
        'Played guitar in front of other people for the first time today, at the open mic. Hands were shaking!',
      marker: 'open mic',
      question: 'When did I perform live for the first time?',
    }),
  ],
  pairs: [
    (rng) => {
      const price = rng.pick([35, 40, 45, 50]);
      const lessons = rng.pick([4, 6, 8]);
      return {
        first: `The guitar lessons are $${price} each, which is steep but fine.`,
        firstAnswer: `$${price}`,
        second: `Teacher suggested a block of ${lessons} lessons before the recital.`,
        secondAnswer: `${lessons} lessons`,
        question: 'How much will I spend on music lessons before the recital?',
      };
    },
  ],
  advice: [
    (rng) => {
      const exercise = rng.pick([
        'the one-minute chord change drill',
        'practising with a metronome at 60 bpm',
        'spider finger exercises',
      ]);
      return {
        ask: 'My chord changes are so slow. What should I practise?',
        reply: `Do ${exercise} for five minutes at the start of every session. Track your count in a notebook; most people double their speed within three weeks.`,
        answer: exercise,
        question: 'What guitar exercise did you tell me to do every session?',
      };
    },
  ],
  chatter: [
    {
      ask: () => 'How long does it take for fingertips to stop hurting when learning guitar?',
      answer: 'Fingertips usually stop hurting after two to four weeks of daily guitar practice, once calluses form.',
    },
    {
      ask: () => 'What is a good way to practise chord changes?',
      answer:
        'Practise chord changes by switching between two chords for one minute, counting changes, then adding a third chord.',
    },
    {
      ask: () => 'How do I lead a book club discussion if half the group did not finish the book?',
      answer:
        'Open the book club discussion with questions about the first half and the characters so everyone can join in.',
    },
    {
      ask: () => 'Any song recommendations for a beginner guitarist?',
      answer: 'Songs with three or four open chords are ideal for a beginner guitarist.',
    },
    {
      ask: () => 'Should I learn to read music or just use tabs?',
      answer: 'Tabs are fine to start; learn to read music later if you want to play with other musicians.',
    },
    {
      ask: () => 'How do I keep practising when I only have twenty minutes a day?',
      answer: 'Twenty focused minutes a day is plenty: warm up, work on one hard passage, then play something fun.',
    },
    {
      ask: () => 'What questions work well for a novel discussion?',
      answer:
        'Good novel discussion questions ask what a character should have done and which scene people remember most.',
    },
    {
      ask: () => 'Is an acoustic or electric guitar better for a beginner?',
      answer: 'An electric guitar is easier on beginner fingers; an acoustic is simpler to pick up and play anywhere.',
    },
    {
      ask: () => 'How do I deal with stage fright at an open mic?',
      answer: 'For open mic nerves, play a song you know by heart and focus on one friendly face.',
    },
    {
      ask: () => 'What are good books for a reading group that likes literary fiction?',
      answer:
        'Reading groups that like literary fiction often enjoy novels with unusual structures and strong characters.',
    },
    {
      ask: () => 'What song should I learn after the basic open chords?',
      answer: 'After the open chords, a song with a simple barre chord or two is the natural next step.',
    },
    {
      ask: () => 'Are weekend music lessons enough, or do I need two a week?',
      answer: 'One weekend lesson a week is enough if you practise daily between lessons.',
    },
    {
      ask: () => 'How do I pick the next book for the club when everyone disagrees?',
      answer: "Let each member nominate one book and vote, so the club's next pick feels fair.",
    },
    {
      ask: () => 'How do people prepare for their first live performance?',
      answer:
        'Before the first live performance, rehearse in front of friends and record yourself to get used to the pressure.',
    },
    {
      ask: () => 'How much do music lessons usually cost before a recital?',
      answer: 'Recital preparation usually adds a few extra lessons; many teachers offer a package price for them.',
    },
    {
      ask: () => 'What should every guitar practice session include?',
      answer: 'Every practice session should include a short warm-up, one technical exercise and a piece you enjoy.',
    },
  ],
  replies: [
    'Calluses usually form within two to four weeks of daily practice, and the soreness fades with them.',
    'Practise switching between two chords slowly for a minute at a time, then add a third.',
    'Open the discussion with broad questions about the characters so people who did not finish can still take part.',
    'Songs with three or four open chords are ideal for building confidence early on.',
    'Tabs are enough to start; reading music becomes useful later if you want to play with others.',
    'Short daily sessions beat a long weekly one; twenty focused minutes is plenty of progress.',
    'Questions about choices characters make, and what you would have done, tend to spark the best conversations.',
    'Acoustic guitars are simpler to start with, while electrics are easier on the fingers.',
    'Pick a song you know by heart for the first performance, and focus on one friendly face in the room.',
    'Literary fiction groups often enjoy novels that mix an unusual structure with strong characters.',
  ],
};
