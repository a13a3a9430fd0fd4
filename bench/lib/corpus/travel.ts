import type { Topic } from './topic.js';

const cities = ['Lisbon', 'Kyoto', 'Reykjavik', 'Oaxaca', 'Tbilisi', 'Ljubljana', 'Hobart'];
const hotels = ['the Casa Azul guesthouse', 'Hotel Miramar', 'a ryokan called Hanaya', 'the Old Mill B&B', 'Pension Adler'];
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
        question: 'Where are we staying on our fall vacation?',
      };
    },
    (rng) => {
      const airline = rng.pick(airlines);
      return {
        statement: `Flights are sorted — we're flying ${airline}, the cheapest option that didn't involve a 6am departure.`,
        answer: airline,
        question: 'Which carrier did we book the tickets with?',
      };
    },
    (rng) => {
      const city = rng.pick(cities);
      return {
        statement: `My sister lives in ${city} now, so we might combine the trip with a visit to her.`,
        answer: city,
        question: 'What city did my sister move to?',
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
        question: 'What was the trip-planning app you mentioned?',
      };
    },
  ],
  chatter: [
    (rng) => `Is ${rng.pick(cities)} worth visiting in October, or is the weather too unpredictable?`,
    () => 'What should I pack for a five-night trip with just a carry-on?',
    () => 'How early should I book flights for a holiday in the autumn?',
    () => 'Any tips for beating jet lag when flying east?',
    () => 'Is travel insurance worth it for a short trip within Europe?',
    () => 'My sister wants us to stay with her, but I prefer a hotel. How do I say that nicely?',
    () => 'Which apps are good for planning a trip itinerary with friends?',
    () => 'We always overspend on vacation. How do you budget a trip realistically?',
    () => 'What is a good anniversary trip idea that is not too touristy?',
    () => 'How much cash should I bring when travelling abroad these days?',
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
