import type { Topic } from './topic.js';

const dishes = ['a lemon risotto', 'shakshuka', 'a Thai green curry', 'mushroom stroganoff', 'a lamb tagine'];
const guests = ['Marguerite', 'Jonas', 'Beatriz', 'Kwame', 'Ingrid', 'Rafael'];
const ingredients = ['cilantro', 'blue cheese', 'olives', 'eggplant', 'anchovies'];

/** Cooking: dinner parties, dislikes, recipes. */
export const cooking: Topic = {
  name: 'cooking',
  facts: [
    (rng) => {
      const ingredient = rng.pick(ingredients);
      return {
        statement: `Note to self and to you: my partner absolutely hates ${ingredient}, so leave it out of any recipe ideas.`,
        answer: ingredient,
        question: 'Which ingredient should I avoid because my partner dislikes it?',
        paraphrase: 'Which food does my significant other refuse to eat?',
      };
    },
    (rng) => {
      const dish = rng.pick(dishes);
      return {
        statement: `The dinner party menu is decided: I'm making ${dish} as the main, with a simple salad on the side.`,
        answer: dish,
        question: "What main course did I choose for the dinner I'm hosting?",
        paraphrase: 'What centrepiece dish will be served to the guests?',
      };
    },
    (rng) => {
      const guest = rng.pick(guests);
      return {
        statement: `One of the guests, ${guest}, is vegan, so dessert needs to work without eggs or butter.`,
        answer: guest,
        question: "Which of my dinner guests doesn't eat animal products?",
        paraphrase: 'Which friend coming over follows a plant-based diet?',
      };
    },
  ],
  events: [
    () => ({
      statement: 'I baked sourdough for the very first time today. Dense, but edible!',
      marker: 'baked sourdough',
      question: 'When did I make my first loaf of bread?',
    }),
    () => ({
      statement: 'Hosted the dinner party tonight — everyone stayed until midnight and the dessert vanished.',
      marker: 'Hosted the dinner party',
      question: 'What was the date of the dinner I threw?',
    }),
  ],
  pairs: [
    (rng) => {
      const guestsCount = rng.pick([6, 8, 10]);
      const perPerson = rng.pick([12, 15, 18]);
      return {
        first: `Final headcount for the dinner party: ${guestsCount} people including us.`,
        firstAnswer: `${guestsCount} people`,
        second: `I priced the ingredients for the dinner at about $${perPerson} a head.`,
        secondAnswer: `$${perPerson} a head`,
        question: 'What will the food for the dinner party cost in total?',
      };
    },
  ],
  advice: [
    (rng) => {
      const dessert = rng.pick([
        'a coconut panna cotta',
        'a dark chocolate avocado mousse',
        'roasted peaches with cashew cream',
      ]);
      return {
        ask: 'I need a dessert that works for everyone at the dinner, including the vegan guest. Ideas?',
        reply: `Go for ${dessert}. It can be made the day before, needs no eggs or butter, and nobody will notice it is vegan.`,
        answer: dessert,
        question: 'Which vegan dessert did you come up with for my party?',
      };
    },
  ],
  chatter: [
    {
      ask: () => 'What is a good make-ahead dessert for a dinner party?',
      answer: 'Tiramisu, panna cotta or a fruit crumble can all be made the day before a dinner party.',
    },
    {
      ask: () => 'How do I keep risotto creamy if guests arrive late?',
      answer:
        'Cook the risotto three quarters of the way, spread it on a tray, and finish it with hot stock when guests arrive.',
    },
    {
      ask: (rng) => `What can I use instead of ${rng.pick(ingredients)} in a salad?`,
      answer: 'In a salad, swap it for toasted seeds, capers or a sharp hard cheese for a similar punch.',
    },
    {
      ask: () => 'Any vegan dessert that does not taste like a compromise?',
      answer:
        'A dark chocolate mousse made with aquafaba or a coconut rice pudding are vegan desserts nobody treats as a compromise.',
    },
    {
      ask: () => 'How far in advance can I prep vegetables for a dinner?',
      answer: 'Most vegetables can be chopped a day ahead and kept in airtight containers lined with paper towels.',
    },
    {
      ask: () => 'My sourdough starter smells like nail polish. Is it dead?',
      answer: 'A nail-polish smell means the starter is hungry, not dead; feed it twice a day for a few days.',
    },
    {
      ask: () => 'What wine goes with a spicy curry?',
      answer: 'With a spicy curry, an off-dry riesling or gewürztraminer balances the heat better than a heavy red.',
    },
    {
      ask: () => 'How do I scale a recipe for eight people without ruining it?',
      answer: 'Scale the main ingredients linearly for eight, but add salt and spices gradually and taste as you go.',
    },
    {
      ask: () => 'What is an easy side dish that goes with almost any main?',
      answer: 'Roasted vegetables with olive oil and herbs go with almost any main course.',
    },
    {
      ask: () => 'My partner is a picky eater. How do I plan a menu everyone likes?',
      answer:
        'Plan the menu around a simple base and serve sauces and toppings on the side so picky eaters can adapt it.',
    },
    {
      ask: () => 'My partner dislikes most vegetables. Which ingredient swaps sneak them in?',
      answer:
        'Blend vegetables into sauces and soups; grated courgette or carrot disappears into almost any ingredient list.',
    },
    {
      ask: () => "What main course works for a dinner party if I'm not confident cooking meat?",
      answer: 'A baked pasta, a vegetable curry or a risotto makes a forgiving main course for a dinner party.',
    },
    {
      ask: () => 'How do I make sure vegan guests have enough to eat at a dinner party?',
      answer: 'Make at least one main dish fully vegan so vegan guests are not left with side dishes only.',
    },
    {
      ask: () => 'Is bread flour really necessary for a first loaf?',
      answer: 'For a first loaf, all-purpose flour works; bread flour just gives a chewier crumb.',
    },
    {
      ask: () => 'What does a dinner party usually cost per guest?',
      answer:
        'A home dinner party typically costs between ten and twenty per guest, depending on wine and the main course.',
    },
    {
      ask: () => 'Any dessert ideas for a party that can sit out for a few hours?',
      answer: 'Brownies, lemon bars and fruit tarts hold up well at a party for several hours.',
    },
  ],
  replies: [
    'Desserts like panna cotta, tiramisu or a fruit crumble can be made the day before and improve overnight.',
    'Par-cook the risotto until it is nearly done, spread it on a tray, and finish it with hot stock when guests arrive.',
    'Aquafaba and coconut cream are reliable replacements for eggs and dairy in many desserts.',
    'Chopped vegetables keep well for a day in the fridge in airtight containers lined with paper towels.',
    'A sharp acetone smell means the starter is hungry; feed it twice a day for a few days and it usually recovers.',
    'Off-dry whites such as riesling balance heat in spicy dishes better than heavy red wines.',
    'When scaling recipes, multiply the main ingredients but adjust salt and spices gradually by taste.',
    'Roasted vegetables with olive oil and herbs go with nearly any main and need little attention.',
    'Build the menu around a neutral base and offer sauces and toppings separately so everyone can adapt it.',
    'Write a simple timeline for the evening backwards from when you want to serve the main course.',
  ],
};
