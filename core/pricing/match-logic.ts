/**
 * Compiles genai-prices' model match logic into a predicate, once per model when a registry is built.
 *
 * Semantics follow genai-prices exactly: the model name is lower-cased before matching, literal
 * clauses compare lower-cased, and `regex` clauses run (case-sensitively, as genai-prices does)
 * against the lower-cased name. Regular expressions are compiled once here instead of on every call.
 */
import { PriceDataError } from './errors';
import type { MatchLogic } from './snapshot-schema';

/** A compiled match rule; `name` must already be lower-cased and trimmed. */
export type ModelMatcher = (name: string) => boolean;

/**
 * Compiles a match rule.
 *
 * @throws PriceDataError for an unknown clause or an invalid regular expression.
 */
export function compileMatchLogic(logic: MatchLogic): ModelMatcher {
  if ('equals' in logic) {
    const value = logic.equals.toLowerCase();
    return (name) => name === value;
  }
  if ('starts_with' in logic) {
    const value = logic.starts_with.toLowerCase();
    return (name) => name.startsWith(value);
  }
  if ('ends_with' in logic) {
    const value = logic.ends_with.toLowerCase();
    return (name) => name.endsWith(value);
  }
  if ('contains' in logic) {
    const value = logic.contains.toLowerCase();
    return (name) => name.includes(value);
  }
  if ('regex' in logic) {
    let re: RegExp;
    try {
      re = new RegExp(logic.regex);
    } catch (err) {
      throw new PriceDataError(`Invalid regex in match logic: ${logic.regex}`, { cause: err });
    }
    return (name) => re.test(name);
  }
  if ('or' in logic) {
    const parts = logic.or.map(compileMatchLogic);
    return (name) => parts.some((part) => part(name));
  }
  if ('and' in logic) {
    const parts = logic.and.map(compileMatchLogic);
    return (name) => parts.every((part) => part(name));
  }
  throw new PriceDataError(`Unknown match clause: ${JSON.stringify(logic)}`);
}
