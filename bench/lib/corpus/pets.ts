import type { Topic } from './topic.js';

const dogNames = ['Biscuit', 'Pepper', 'Waffles', 'Juniper', 'Marlowe', 'Tofu', 'Bramble', 'Ziggy'];
const catNames = ['Miso', 'Clementine', 'Sprocket', 'Noodle', 'Saffron', 'Pickles'];
const breeds = ['beagle', 'border collie', 'corgi', 'whippet', 'labrador', 'schnauzer'];
const vets = ['Dr. Okafor', 'Dr. Lindqvist', 'Dr. Ramirez', 'Dr. Haddad', 'Dr. Whitfield'];
const foods = ['salmon kibble', 'a grain-free lamb formula', 'the turkey and rice mix', 'duck-based wet food'];

/** Pets: names, vet, food, adoption. */
export const pets: Topic = {
  name: 'pets',
  facts: [
    (rng) => {
      const name = rng.pick(dogNames);
      return {
        statement: `We finally brought home the ${rng.pick(breeds)} puppy from the shelter, and the kids insisted on naming him ${name}. He already sleeps on my feet.`,
        answer: name,
        question: 'Remind me, what name did the kids give our puppy?',
        paraphrase: 'What did the children call the new dog?',
      };
    },
    (rng) => {
      const vet = rng.pick(vets);
      return {
        statement: `Switched the animals to a new clinic near the park — ${vet} is our vet now, she was great with the cat during the check-up.`,
        answer: vet,
        question: 'Who is the vet at the clinic we chose?',
        paraphrase: 'Who is the veterinarian we moved to?',
      };
    },
    (rng) => {
      const food = rng.pick(foods);
      return {
        statement: `The cat's tummy issues stopped once we moved her onto ${food}, so we're sticking with that brand for good.`,
        answer: food,
        question: "What food fixed my cat's stomach problems?",
        paraphrase: "Which diet settled my pet's digestion?",
      };
    },
  ],
  events: [
    () => ({
      statement: 'Big day: the pup got his rabies shot and the microchip this morning. He barely noticed the needle.',
      marker: 'rabies shot',
      question: 'When did the dog get vaccinated against rabies?',
    }),
    () => ({
      statement:
        'We signed the adoption papers for a second kitten today, a tiny grey one. The cat is not impressed yet.',
      marker: 'adoption papers',
      question: 'On what date did we adopt the second kitten?',
    }),
  ],
  pairs: [
    (rng) => {
      const cat = rng.pick(catNames);
      const dog = rng.pick(dogNames.filter((name) => name !== cat));
      return {
        first: `Our cat ${cat} turned nine last week, still the boss of the house.`,
        firstAnswer: `${cat} turned nine`,
        second: `The neighbour asked how old the dog is — ${dog} will be four in spring, hard to believe.`,
        secondAnswer: `${dog} will be four`,
        question: 'Which is older, my cat or the dog, and by how many years?',
      };
    },
  ],
  advice: [
    (rng) => {
      const trainer = rng.pick(['Paws & Progress', 'the Good Dog Academy', 'Barkley Basics', 'Happy Tails School']);
      return {
        ask: 'Can you recommend a way to find a puppy class nearby? The barking is getting out of hand.',
        reply: `A structured group class helps a lot at this age. People in your area often mention ${trainer}; their six-week puppy course covers recall, leash walking and calm greetings. Ask whether they use reward-based methods before you sign up.`,
        answer: trainer,
        question: 'What was the puppy course you suggested to me?',
      };
    },
  ],
  chatter: [
    {
      ask: (rng) =>
        `Any tips for stopping a ${rng.pick(breeds)} from barking at the mail carrier? Our puppy goes crazy every morning.`,
      answer:
        'Barking at the mail carrier is usually alert barking; practise a calm "quiet" cue with treats at the moment the carrier approaches, and block the view of the street for a few weeks.',
    },
    {
      ask: () =>
        'The kids keep forgetting to fill the water bowl. How do I get them to take some responsibility for the dog?',
      answer:
        'A visible chore chart with one dog task per child, checked off every evening, tends to work better than reminders.',
    },
    {
      ask: () => 'How often should a cat go to the vet for a check-up if she seems healthy?',
      answer: 'A healthy adult cat should see the vet once a year; from about ten years old, twice a year is safer.',
    },
    {
      ask: () => 'Is it normal for a puppy to sleep eighteen hours a day? Ours naps constantly.',
      answer:
        'Yes, puppies commonly sleep eighteen to twenty hours a day; that much napping is normal while they grow.',
    },
    {
      ask: () => 'What food portions make sense for a medium-size dog that walks about an hour a day?',
      answer:
        "Start with the feeding guide on the bag for the dog's ideal weight, then adjust by ten percent up or down based on body condition.",
    },
    {
      ask: () => 'The cat scratched the new sofa again. Are scratching posts actually worth it?',
      answer:
        'Scratching posts do work if they are sturdy, tall enough for a full stretch, and placed right next to the sofa she is targeting.',
    },
    {
      ask: () => 'Should we get pet insurance now or wait until the puppy is older?',
      answer: 'Insuring the puppy now is usually cheaper and avoids exclusions for conditions that show up later.',
    },
    {
      ask: () => "Our vet suggested dental chews. Do those really do anything for a dog's teeth?",
      answer:
        'Dental chews help a little with plaque, but daily brushing with dog toothpaste does far more for the teeth.',
    },
    {
      ask: () => 'How do I introduce a new kitten to an older cat without a fight?',
      answer:
        "Keep the kitten in a separate room for a few days, swap bedding so they learn each other's scent, then allow short supervised meetings.",
    },
    {
      ask: () => 'What name ideas do you have for a goldfish? The kids want one now too.',
      answer: 'For a goldfish, playful names like Bubbles, Nemo or Captain Fin tend to be a hit with kids.',
    },
    {
      ask: () => "My neighbour's kids want to give their puppy a funny name. Any ideas I can pass on?",
      answer: 'Funny puppy names kids love include Sir Barksalot, Meatball and Noodle.',
    },
    {
      ask: () => 'Do vets at a new clinic need the full vaccination history, or just the rabies certificate?',
      answer:
        'A new clinic will want the full vaccination history, including the rabies certificate, so ask the old vet to send the records.',
    },
    {
      ask: () => "My friend's cat has stomach problems after switching food. Is that common?",
      answer:
        "Yes, a sudden food switch often upsets a cat's stomach; mixing the old and new food over a week usually prevents it.",
    },
    {
      ask: () => 'How old should a kitten be before it is adopted?',
      answer: 'Kittens are best adopted at around twelve weeks, once they are weaned and socialised.',
    },
    {
      ask: () => 'Is a puppy course worth it, or can we train the dog at home?',
      answer:
        'Home training works for basics, but a puppy course adds socialisation with other dogs that is hard to get at home.',
    },
    {
      ask: () => 'The dog seems older and slower lately. How many years do beagles usually live?',
      answer:
        'Most medium-size dogs live twelve to fifteen years; slowing down can also be a sign to check joints with the vet.',
    },
  ],
  replies: [
    'Consistency matters more than any single technique, so agree on the same commands with everyone in the household.',
    'Short, frequent training sessions of five to ten minutes work better for young dogs than one long session.',
    'Reward the behaviour you want within a second or two, otherwise the animal will not connect the treat to the action.',
    'Most vets recommend a yearly check-up for healthy adult pets and twice a year once they are seniors.',
    'If the symptoms persist for more than a couple of days, it is worth calling the clinic rather than waiting.',
    'Cats usually prefer vertical spaces, so a tall post near the spot they already scratch is often enough.',
    "Introduce new animals gradually: swap blankets first so they learn each other's scent before meeting.",
    'Puppies do sleep a lot; growth and new experiences are tiring, and plenty of rest is perfectly healthy.',
    'Keep an eye on body condition: you should be able to feel the ribs without seeing them.',
    'Giving children a simple chart for feeding and water can make the routine feel like a game.',
    'Insurance premiums are usually lower when you enrol a young animal before any condition is diagnosed.',
  ],
};
