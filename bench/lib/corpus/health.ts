import type { Topic } from './topic.js';

const allergies = ['penicillin', 'shellfish', 'tree nuts', 'sesame', 'ibuprofen'];
const doctors = ['Dr. Moreau', 'Dr. Nakamura', 'Dr. Patel', 'Dr. Oyelaran', 'Dr. Fischer'];
const races = ['the city half marathon', 'a 10k trail race', 'the harbour fun run', 'an autumn 15k'];

/** Health and fitness: allergies, doctors, running. */
export const health: Topic = {
  name: 'health',
  facts: [
    (rng) => {
      const allergy = rng.pick(allergies);
      return {
        statement: `Important for meal and medicine stuff: I found out I'm allergic to ${allergy}. Ended up with hives all over my arms.`,
        answer: allergy,
        question: 'What gave me those hives, what is my allergy?',
        paraphrase: 'What did the doctor say I have an allergy to?',
      };
    },
    (rng) => {
      const doctor = rng.pick(doctors);
      return {
        statement: `My knee specialist is ${doctor}; the physio referred me after the MRI came back fine.`,
        answer: doctor,
        question: 'Which doctor is treating my knee?',
        paraphrase: 'Which orthopaedist is treating my leg injury?',
      };
    },
    (rng) => {
      const race = rng.pick(races);
      return {
        statement: `I registered for ${race} in the spring. Time to actually follow a training plan.`,
        answer: race,
        question: 'Which spring event am I registered for?',
        paraphrase: 'What running event did I sign up for?',
      };
    },
  ],
  events: [
    () => ({
      statement: 'Had the blood test this morning, fasting since last night. Results in a few days.',
      marker: 'blood test',
      question: 'When was my fasting blood draw?',
    }),
    () => ({
      statement: 'Ran my first full 10 kilometres without stopping today. Legs are jelly.',
      marker: 'first full 10 kilometres',
      question: 'On which day did I first manage to run 10k nonstop?',
    }),
  ],
  pairs: [
    (rng) => {
      const start = rng.pick([84, 88, 91, 95]);
      const now = start - rng.pick([3, 4, 6, 7]);
      return {
        first: `Stepped on the scale at the gym: ${start} kg. Not thrilled, starting the running plan this week.`,
        firstAnswer: `${start} kg`,
        second: `Weight update: I'm down to ${now} kg — the morning runs are working.`,
        secondAnswer: `${now} kg`,
        question: 'How much weight have I lost since I started the running plan?',
      };
    },
  ],
  advice: [
    (rng) => {
      const plan = rng.pick([
        'a run-walk plan of 3 minutes running and 1 minute walking',
        'the 10 percent rule for weekly mileage',
        'two easy runs and one long run each week',
      ]);
      return {
        ask: 'How should I structure my training so my knee does not flare up again?',
        reply: `I would start with ${plan}. It keeps the load predictable, and if the knee aches the next morning, repeat the previous week instead of progressing.`,
        answer: plan,
        question: 'What training structure did you recommend for my knee?',
      };
    },
  ],
  chatter: [
    {
      ask: () => 'How many days a week should a beginner run to avoid knee pain?',
      answer: 'Beginners should run three days a week with rest days in between so the knees and tendons adapt.',
    },
    {
      ask: () => 'What is a good warm-up before a morning run?',
      answer: 'Before a morning run, do five minutes of brisk walking, leg swings and a few lunges.',
    },
    {
      ask: () => 'Is it okay to train for a race with a mild cold?',
      answer:
        'With a mild head cold, easy running is usually fine; skip training if you have a fever or chest symptoms.',
    },
    {
      ask: () => 'What should I eat the night before a long run?',
      answer:
        'The night before a long run, eat a familiar carbohydrate-rich dinner like pasta or rice and avoid anything new.',
    },
    {
      ask: () => 'My doctor wants me to cut back on coffee. How do I deal with the headaches?',
      answer:
        'Cut coffee back gradually, about a quarter every few days, and drink more water to avoid caffeine headaches.',
    },
    {
      ask: () => 'Are standing desks actually good for your back?',
      answer: 'Standing desks help mainly because you change position; alternate every thirty to sixty minutes.',
    },
    {
      ask: () => 'How do I know if an allergy is serious enough to carry an epipen?',
      answer:
        'If an allergic reaction ever involved breathing trouble or throat swelling, ask your doctor about carrying an epipen.',
    },
    {
      ask: () => 'What stretches help with tight hamstrings after running?',
      answer:
        'After running, a standing hamstring stretch and a lying strap stretch, held thirty seconds each, help tight hamstrings.',
    },
    {
      ask: () => 'How much sleep do I really need when training for a race?',
      answer: 'While training for a race, aim for seven to nine hours of sleep; recovery happens mostly at night.',
    },
    {
      ask: () => 'The gym scale and my home scale disagree by two kilos. Which one should I trust?',
      answer:
        'Trust one scale consistently, weigh at the same time of day, and watch the weekly trend rather than single readings.',
    },
    {
      ask: () => "I get hives sometimes after eating out. How do I find out what I'm allergic to?",
      answer:
        'Keep a food diary of when the hives appear and ask your doctor about a skin-prick or blood allergy test.',
    },
    {
      ask: () => 'Is a spring race a good first goal for a new runner?',
      answer: 'A spring race gives a beginner a clear deadline; a 5k or 10k is a realistic first goal.',
    },
    {
      ask: () => 'Do I need to be fasting for every blood test?',
      answer:
        'Only some blood tests require fasting, such as glucose and cholesterol; the lab will tell you beforehand.',
    },
    {
      ask: () => 'My knee hurts going downstairs after running. Should I stop?',
      answer:
        'Knee pain on stairs after running suggests reducing mileage for a week and checking your shoes before it worsens.',
    },
    {
      ask: () => 'How much weight can I realistically lose with a running plan?',
      answer:
        'With a running plan and a modest calorie deficit, losing about half a kilo of weight a week is realistic.',
    },
    {
      ask: () => 'When will I be able to run 10k without stopping?',
      answer: 'Most beginners can run 10k nonstop after eight to twelve weeks of consistent training.',
    },
  ],
  replies: [
    'Beginners do well with three runs a week and a rest day between them, so tendons can adapt.',
    'A dynamic warm-up of leg swings, lunges and a few minutes of easy jogging prepares the joints well.',
    'The usual rule is the neck check: symptoms above the neck may allow easy running, below the neck means rest.',
    'A familiar, carbohydrate-rich dinner the night before a long run works better than anything new.',
    'Reducing caffeine gradually, by a quarter every few days, usually avoids withdrawal headaches.',
    'Alternating between sitting and standing matters more than standing all day.',
    'Any allergic reaction involving breathing or swelling of the throat should be discussed with a doctor promptly.',
    'Gentle static stretches after running, held for thirty seconds, help with tight hamstrings.',
    'Most people training regularly need seven to nine hours of sleep to recover properly.',
    'Track the trend on one scale at the same time of day rather than comparing different devices.',
  ],
};
