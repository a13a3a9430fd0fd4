import type { Topic } from './topic.js';

const streets = ['Alder Street', 'Cromwell Road', 'Linden Avenue', 'Harbour Lane', 'Quarry Hill', 'Maple Crescent'];
const landlords = ['Mrs. Kowalski', 'Mr. Adeyemi', 'Ms. Tanaka', 'Mr. Brennan', 'Mrs. Oduya'];
const colours = ['sage green', 'terracotta', 'a pale duck-egg blue', 'warm ochre', 'charcoal grey'];

/** Home: moving, rent, landlord, renovations. */
export const home: Topic = {
  name: 'home',
  facts: [
    (rng) => {
      const street = rng.pick(streets);
      return {
        statement: `Good news on the flat hunt: we got the two-bedroom on ${street}, top floor with a little balcony. Moving boxes everywhere now.`,
        answer: street,
        question: 'What street is our new place with the balcony on?',
        paraphrase: 'What is the address of our new apartment?',
      };
    },
    (rng) => {
      const landlord = rng.pick(landlords);
      return {
        statement: `The owner of the building, ${landlord}, dropped by to fix the radiator herself. Nice to have someone responsive for once.`,
        answer: landlord,
        question: 'What is the name of the landlady who fixed the radiator?',
        paraphrase: 'What is the name of my landlady?',
      };
    },
    (rng) => {
      const colour = rng.pick(colours);
      return {
        statement: `We settled the paint debate for the living room walls: ${colour}. My partner wanted white but I won.`,
        answer: colour,
        question: 'What colour did we choose for the living room?',
        paraphrase: 'What colour did we pick for painting the lounge?',
      };
    },
  ],
  events: [
    () => ({
      statement: 'Signed the lease today! Keys get handed over next week, and I already measured the bedroom twice.',
      marker: 'Signed the lease',
      question: 'When exactly did I put my name on the lease for the new place?',
    }),
    () => ({
      statement: 'The plumber finally replaced the leaking boiler this afternoon, so hot showers are back.',
      marker: 'leaking boiler',
      question: 'What day was the water heater replaced?',
    }),
  ],
  pairs: [
    (rng) => {
      const oldRent = rng.pick([980, 1050, 1120, 1200]);
      const newRent = oldRent + rng.pick([150, 210, 275, 320]);
      return {
        first: `Our current place costs us $${oldRent} a month, which is fine, but the kitchen is tiny and the heating is unreliable.`,
        firstAnswer: `$${oldRent}`,
        second: `Rent at the new apartment will be $${newRent} monthly, utilities not included. Bit of a stretch but worth it.`,
        secondAnswer: `$${newRent}`,
        question: 'How much extra per month will the move cost us compared with the old flat?',
      };
    },
  ],
  advice: [
    (rng) => {
      const trick = rng.pick([
        'wrap the plates in towels',
        'pack plates vertically like records',
        'use sock drawers for glasses',
      ]);
      return {
        ask: 'What is your best tip for packing fragile kitchen stuff for the move?',
        reply: `My favourite trick: ${trick}. It saves on bubble wrap and breakages are much rarer. Label every box with the room and the word FRAGILE on two sides.`,
        answer: trick,
        question: 'What was your trick for moving the dishes without breaking them?',
      };
    },
  ],
  chatter: [
    {
      ask: () => 'How do I get landlord approval to paint the walls in a rental apartment?',
      answer:
        'Ask the landlord in writing, propose the exact colour, and offer to repaint before you move out; most agree on those terms.',
    },
    {
      ask: () => 'What is a reasonable monthly budget for utilities in a two-bedroom flat?',
      answer:
        'For a two-bedroom flat, utilities typically run between 150 and 300 a month, with heating the biggest swing between seasons.',
    },
    {
      ask: () => 'Any tricks for packing the kitchen when moving? The boxes keep getting too heavy.',
      answer:
        'Use small boxes for heavy kitchen items like pans and tins, and fill gaps with towels so nothing shifts.',
    },
    {
      ask: () => 'The radiator in the bedroom makes a clanking noise at night. Is that something to worry about?',
      answer:
        'A clanking radiator usually just has trapped air; bleed it with a radiator key and the noise normally stops.',
    },
    {
      ask: () => 'Should I get renters insurance before the move or after?',
      answer:
        'Get renters insurance to start on moving day, so your belongings are covered while they are in transit and at the new place.',
    },
    {
      ask: (rng) => `Is ${rng.pick(colours)} too dark for a small living room with one window?`,
      answer:
        'In a small living room with one window, a darker shade works best on a single wall, with lighter tones elsewhere.',
    },
    {
      ask: () => 'How much notice do I usually have to give before leaving a rental?',
      answer:
        "Most leases ask for one or two months' notice in writing; check the termination clause for the exact period.",
    },
    {
      ask: () => 'What should I check during the final walk-through of the old apartment to get the deposit back?',
      answer:
        'At the walk-through, compare each room with your move-in photos, clean the oven and bathroom thoroughly, and patch nail holes.',
    },
    {
      ask: () => 'We need a sofa that fits through a narrow stairwell. Any ideas?',
      answer:
        'Look for a modular sofa or one with removable arms and legs; measure the tightest turn of the stairwell first.',
    },
    {
      ask: () => 'Our balcony gets full sun. What plants survive that?',
      answer: 'On a full-sun balcony, lavender, rosemary, geraniums and succulents thrive with little care.',
    },
    {
      ask: () => 'Is a balcony worth paying extra rent for?',
      answer: 'A balcony is worth it if you will use it daily; otherwise the extra rent adds up quickly over a year.',
    },
    {
      ask: () => 'The landlady wants to inspect the flat next week. What can she actually check?',
      answer:
        'A landlady can check the condition of the flat and needed repairs, but she must give notice and cannot go through your belongings.',
    },
    {
      ask: () => 'What colour works for a north-facing living room?',
      answer: 'North-facing living rooms look best in warm colours like soft yellows, creams or warm greys.',
    },
    {
      ask: () => 'Should I read the whole lease before signing or just the key parts?',
      answer:
        'Read the whole lease before signing; clauses on repairs, subletting and notice periods are often buried at the end.',
    },
    {
      ask: () => 'The water heater makes a popping sound. Does it need to be replaced?',
      answer:
        'Popping usually means sediment build-up; flushing the tank often fixes it before anything needs to be replaced.',
    },
    {
      ask: () => 'How much does moving usually cost per month of rent, roughly?',
      answer: 'A local move typically costs about one month of rent once you add movers, deposits and new basics.',
    },
  ],
  replies: [
    'Read the lease carefully; many rental agreements allow painting as long as you restore the original colour when you leave.',
    'Take dated photos of every room when you move in and out, it settles most deposit disputes quickly.',
    'Pack heavy items like books in small boxes and light items like bedding in large ones.',
    'Noisy radiators usually have trapped air; bleeding them with a radiator key often fixes the clanking.',
    'Utility costs vary a lot by region, but heating is typically the largest item in winter.',
    'Lighter colours make small rooms feel larger, while a darker accent wall can add depth without closing the space in.',
    'Notice periods are usually one or two months; check the clause in your contract for the exact wording.',
    'Measure doorways and stairwell turns before buying furniture, and look for sofas with removable legs.',
    "Renters insurance is inexpensive and covers your belongings, which the landlord's policy does not.",
    'Herbs like rosemary and thyme, and succulents, handle full sun on balconies very well.',
  ],
};
