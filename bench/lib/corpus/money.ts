import type { Topic } from './topic.js';

const banks = ['Northwind Credit Union', 'Harbor Savings', 'Bluestone Bank', 'Meridian Mutual'];
const goals = ['a used electric car', 'a down payment on a house', 'a year of travel', 'an emergency fund'];

/** Money: savings, banks, budgeting. */
export const money: Topic = {
  name: 'money',
  facts: [
    (rng) => {
      const bank = rng.pick(banks);
      return {
        statement: `I moved my savings to ${bank}; their high-yield account pays almost twice what my old one did.`,
        answer: bank,
        question: 'Where is my savings account held now?',
        paraphrase: 'Where is my rainy-day money kept?',
      };
    },
    (rng) => {
      const goal = rng.pick(goals);
      return {
        statement: `The big savings goal for the next two years is ${goal}. Everything else comes second.`,
        answer: goal,
        question: 'What is the goal I am putting money aside for?',
        paraphrase: 'What am I putting money aside for?',
      };
    },
  ],
  events: [
    () => ({
      statement: 'Paid off the last of the credit card debt today. Zero balance for the first time in years!',
      marker: 'credit card debt',
      question: 'When did I clear my credit card balance?',
    }),
    () => ({
      statement: 'Filed my tax return today, finally. Expecting a small refund.',
      marker: 'tax return',
      question: 'What day did I submit my tax return?',
    }),
  ],
  pairs: [
    (rng) => {
      const monthly = rng.pick([300, 400, 450, 600]);
      const target = monthly * rng.pick([10, 12, 15, 20]);
      return {
        first: `I set up an automatic transfer of $${monthly} into savings every month.`,
        firstAnswer: `$${monthly}`,
        second: `The savings target I've set is $${target} — that's the number that would make me feel safe.`,
        secondAnswer: `$${target}`,
        question: 'With my automatic transfer, how long until I reach the savings target?',
      };
    },
  ],
  advice: [
    (rng) => {
      const method = rng.pick([
        'the 50/30/20 rule',
        'envelope budgeting',
        'zero-based budgeting',
        'a pay-yourself-first budget',
      ]);
      return {
        ask: 'I keep failing at budgeting. What method would you pick for someone like me?',
        reply: `Given how you describe it, I would budget with ${method}. It has very few categories to track, and you only need to review it once a week.`,
        answer: method,
        question: 'Remind me which budget method you suggested?',
      };
    },
  ],
  chatter: [
    {
      ask: () => 'Is a high-yield savings account better than index funds for money I need in two years?',
      answer: 'For money needed within two years, a high-yield savings account is safer than index funds.',
    },
    {
      ask: () => 'How do I stop impulse spending on takeout?',
      answer:
        'To curb takeout spending, delete the delivery apps from your phone and keep two easy meals in the freezer.',
    },
    {
      ask: () => 'What percentage of income should go to savings, realistically?',
      answer: 'Saving fifteen to twenty percent of income is a common target, but any automatic amount beats none.',
    },
    {
      ask: () => 'Should I pay off debt first or build an emergency fund?',
      answer: "Build a small emergency fund of one month's expenses first, then attack high-interest debt.",
    },
    {
      ask: () => 'Any budgeting method that does not require tracking every single coffee?',
      answer: 'A pay-yourself-first budget only tracks savings and fixed bills, so you never log individual coffees.',
    },
    {
      ask: () => 'How do I talk to my partner about money without it turning into a fight?',
      answer: 'Talk about money at a calm time, start from shared goals, and agree on a monthly check-in.',
    },
    {
      ask: () => 'Is it worth switching banks just for a slightly better savings rate?',
      answer:
        'Switching banks is worth it when the higher rate on your balance beats the hassle, and there are no fees.',
    },
    {
      ask: () => 'What should I do with a tax refund?',
      answer: 'Split a tax refund: most to debt or savings, and a small part for something you enjoy.',
    },
    {
      ask: () => 'How much of an emergency fund is enough?',
      answer: 'Three to six months of essential expenses is the usual emergency fund target.',
    },
    {
      ask: () => 'Are automatic transfers into savings really that effective?',
      answer:
        'Automatic transfers on payday are one of the most effective savings habits because they remove the decision.',
    },
    {
      ask: () => 'How do I open a savings account for my niece?',
      answer: "Most banks let a parent or guardian open a children's savings account; you can then gift money into it.",
    },
    {
      ask: () => 'What is a realistic savings goal for someone in their thirties?',
      answer: 'A common savings goal in your thirties is one to two times your annual salary set aside for retirement.',
    },
    {
      ask: () => 'My friend owes on three credit cards. Which balance should she pay first?',
      answer: 'Paying the credit card with the highest interest balance first saves the most money.',
    },
    {
      ask: () => 'Can I submit my tax return late if I expect a refund?',
      answer:
        'You can usually file a tax return late without penalty when you are owed a refund, but check the local rules.',
    },
    {
      ask: () => 'Is an automatic transfer better on payday or at the end of the month?',
      answer: 'An automatic transfer on payday works better, before the money can be spent on other things.',
    },
    {
      ask: () => 'Which budget app is the least annoying to use?',
      answer: 'The least annoying budget apps sync with your bank and only ask you to review a few categories.',
    },
  ],
  replies: [
    'Money needed within two or three years is usually safer in savings than in volatile investments.',
    'Automating savings on payday removes the decision and is one of the most effective habits.',
    'A common rule of thumb is fifty percent needs, thirty percent wants, and twenty percent savings.',
    'High-interest debt usually comes first, but a small starter emergency fund prevents new debt.',
    'Pay-yourself-first budgeting only tracks savings; whatever is left can be spent freely.',
    'Schedule money conversations at a calm time and start from shared goals rather than past mistakes.',
    'Switching banks is worth it when the rate difference is meaningful for your balance and there are no fees.',
    'Three to six months of essential expenses is the typical emergency fund target.',
    'Splitting a windfall between debt, savings and something fun keeps the plan sustainable.',
    'Review subscriptions once a quarter; small recurring charges add up faster than people expect.',
  ],
};
