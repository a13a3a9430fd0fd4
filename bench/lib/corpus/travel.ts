import type { Topic } from './topic.js';

const cities = ['Lisbon', 'Kyoto', 'Reykjavik', 'Oaxaca', 'Tbilisi', 'Ljubljana', 'Hobart'];
const hotels = [
  'the Casa Azul guesthouse',
  'Hotel Miramar',
  'a ryokan called Hanaya',
  'the Old Mill B&B',
  'Pension Adler',
];
const airlines = ['TAP', 'Icelandair', 'KLM', 'Finnair', 'Aer Lingus'];

/** Travel: destinations, bookings, flights. */
export const travel: Topic = {
  name: 'travel',
  facts: [
    (rng) => {
      const hotel = rng.pick(hotels);
      return {
        statement: `Booked our accommodation for the autumn holiday: ${hotel}, five nights, breakfast included.`,
        answer: hotel,
        question: 'Where are we staying on our autumn vacation?',
        paraphrase: 'Where are we staying on our fall vacation?',
      };
    },
    (rng) => {
      const airline = rng.pick(airlines);
      return {
        statement: `Flights are sorted — we're flying ${airline}, the cheapest option that didn't involve a 6am departure.`,
        answer: airline,
        question: 'Which airline are our flights with?',
        paraphrase: 'Which carrier did we book the tickets with?',
      };
    },
    (rng) => {
      const city = rng.pick(cities);
      return {
        statement: `My sister lives in ${city} now, so we might combine the trip with a visit to her.`,
        answer: city,
        question: 'What city did my sister move to?',
        paraphrase: 'Where did my sibling relocate to?',
      };
    },
  ],
  events: [
    () => ({
      statement: 'Passport renewal finally came through in the post today, just in time for the trip.',
      marker: 'Passport renewal',
      question: 'When did my new passport arrive?',
    }),
    () => ({
      statement: 'We just got back from the weekend trip to the coast this evening — exhausted but happy.',
      marker: 'weekend trip to the coast',
      question: 'What date did we come home from the seaside weekend?',
    }),
  ],
  pairs: [
    (rng) => {
      const city = rng.pick(cities);
      const days = rng.pick([4, 5, 6, 8]);
      return {
        first: `We decided on the destination for the anniversary trip: ${city}. Neither of us has been.`,
        firstAnswer: city,
        second: `Got the time off approved — ${days} days in total for the anniversary trip, not counting travel.`,
        secondAnswer: `${days} days`,
        question: 'How many days will we spend at our anniversary destination, and where is it?',
      };
    },
  ],
  advice: [
    (rng) => {
      const app = rng.pick(['Wanderlog', 'TripIt', 'Roadtrippers', 'Polarsteps']);
      return {
        ask: 'Is there an app that makes planning a holiday with friends less chaotic?',
        reply: `Try ${app}. Everyone can add places to a shared itinerary, it shows them on a map, and it imports your booking confirmations from email automatically.`,
        answer: app,
        question: 'What was the app for a shared itinerary you mentioned?',
      };
    },
  ],
  chatter: [
    {
      ask: (rng) => `Is ${rng.pick(cities)} worth visiting in October, or is the weather too unpredictable?`,
      answer:
        'October is shoulder season there: fewer crowds and lower prices, though you should pack for a few rainy days.',
    },
    {
      ask: () => 'What should I pack for a five-night trip with just a carry-on?',
      answer:
        'For five nights in a carry-on, pack three tops, two bottoms, one layer and wear the bulkiest shoes on the plane.',
    },
    {
      ask: () => 'How early should I book flights for a holiday in the autumn?',
      answer: 'Book autumn holiday flights about six to ten weeks ahead for the best fares.',
    },
    {
      ask: () => 'Any tips for beating jet lag when flying east?',
      answer:
        'Flying east, shift your sleep an hour earlier for a few days before and get morning daylight on arrival.',
    },
    {
      ask: () => 'Is travel insurance worth it for a short trip within Europe?',
      answer:
        'For a short European trip, travel insurance is mostly worth it for cancellation cover when bookings are non-refundable.',
    },
    {
      ask: () => 'My sister wants us to stay with her, but I prefer a hotel. How do I say that nicely?',
      answer:
        'Tell your sister you want to spend the days with her but sleep somewhere quiet, and suggest a dinner at her place.',
    },
    {
      ask: () => 'Which apps are good for planning a trip itinerary with friends?',
      answer: 'Shared itinerary apps with a map view and a common document keep group trip planning in one place.',
    },
    {
      ask: () => 'We always overspend on vacation. How do you budget a trip realistically?',
      answer:
        'Budget the vacation per day, add fifteen percent for surprises, and pay for the big items before you leave.',
    },
    {
      ask: () => 'What is a good anniversary trip idea that is not too touristy?',
      answer: 'For an anniversary trip, pick a smaller town near a famous city and book one special dinner in advance.',
    },
    {
      ask: () => 'How much cash should I bring when travelling abroad these days?',
      answer: 'Bring a small amount of local cash for markets and tips; cards cover almost everything else abroad.',
    },
    {
      ask: () => 'Which airline has the best legroom for long flights?',
      answer:
        'Legroom varies by aircraft more than by airline; check the seat map for the exact flight before booking.',
    },
    {
      ask: () => 'Where should we go for an autumn vacation with mild weather?',
      answer: 'For a mild autumn vacation, southern Europe and the Canary Islands stay warm well into October.',
    },
    {
      ask: () => 'My sister wants to move to a new city. How do I support her from far away?',
      answer: 'Support her with regular video calls and by helping research neighbourhoods and jobs in the new city.',
    },
    {
      ask: () => 'How long does a passport renewal usually take?',
      answer: 'A passport renewal usually takes three to six weeks, longer before the summer holidays.',
    },
    {
      ask: () => 'Any ideas for a seaside weekend that is not packed with tourists?',
      answer: 'For a quiet seaside weekend, pick a fishing village one stop past the popular resort towns.',
    },
    {
      ask: () => 'How do I keep a shared itinerary from turning into chaos with six friends?',
      answer: 'Give one person the final say on the shared itinerary and keep a short list of must-dos per person.',
    },
  ],
  replies: [
    'Booking flights six to eight weeks ahead usually lands the best fares for shoulder-season trips.',
    'For carry-on only, pack outfits around one colour palette so everything mixes and matches.',
    'Getting daylight early in the morning at your destination is the single most effective jet lag remedy.',
    'Travel insurance is most valuable for the cancellation cover, especially when accommodation is non-refundable.',
    'Being honest but warm helps: say you would love to spend the days together but need a quiet place to sleep.',
    'A shared document or a planning app with a map view keeps group itineraries from falling apart.',
    'Budget per day rather than per trip, and include a buffer of about fifteen percent for surprises.',
    'Smaller towns near popular cities often give the same atmosphere with a fraction of the crowds.',
    'Cards work almost everywhere now, but a small amount of local cash helps with markets and tips.',
    'Shoulder season often means milder prices and fewer queues, at the cost of a few rainy days.',
  ],
};
