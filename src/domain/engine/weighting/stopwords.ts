/**
 * English function words left out of keyword scoring (the Snowball English list, plus the
 * fragments that apostrophes leave behind: `don't` → `don`, `t`). They carry no topic, and
 * left in they lend long chatty messages weight for sharing "the", "you" and "was" with the question.
 */
export const STOPWORDS: ReadonlySet<string> = new Set(
  `i me my myself we our ours ourselves you your yours yourself yourselves he him his himself she her hers herself
  it its itself they them their theirs themselves what which who whom this that these those am is are was were be
  been being have has had having do does did doing would should could ought a an the and but if or because as until
  while of at by for with about against between into through during before after above below to from up down in out
  on off over under again further then once here there when where why how all any both each few more most other some
  such no nor not only own same so than too very can will just now also s t m d ll re ve don didn doesn isn aren wasn
  weren hasn haven hadn won wouldn shan shouldn couldn mustn let`
    .split(/\s+/)
    .filter(Boolean),
);
