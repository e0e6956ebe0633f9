/**
 * FEED-4: what a service sends as markup reaches viewers as plain text only. Feeds' descriptions and some calendars'
 * descriptions are HTML; the page renders everything as text, but passing markup on would show tags to viewers and
 * invite a later renderer to trust it. So markup is converted to its text here (scripts, styles and images dropped,
 * links reduced to their words), whitespace collapsed, and the result capped.
 */
import { compile } from 'html-to-text';

const options = {
  wordwrap: false as const,
  selectors: [
    { selector: 'a', options: { ignoreHref: true } },
    { selector: 'img', format: 'skip' },
    { selector: 'script', format: 'skip' },
    { selector: 'style', format: 'skip' },
    { selector: 'iframe', format: 'skip' },
    { selector: 'object', format: 'skip' },
    { selector: 'svg', format: 'skip' },
    { selector: 'h1', options: { uppercase: false } },
    { selector: 'h2', options: { uppercase: false } },
    { selector: 'h3', options: { uppercase: false } },
    { selector: 'h4', options: { uppercase: false } },
    { selector: 'h5', options: { uppercase: false } },
    { selector: 'h6', options: { uppercase: false } },
  ],
};

const convert = compile(options);

/** At most this many characters of one text (a summary, a description) are passed on. */
export const maxTextLength = 2000;

function capped(text: string, max: number): string {
  if (text.length <= max) return text;
  return `${text.slice(0, max - 1).trimEnd()}…`;
}

/** FEED-4: the text of `html` (markup, entities and all), on one line, at most `max` characters. */
export function plainText(html: string | null | undefined, max = maxTextLength): string {
  if (!html) return '';
  // Bound the converter's work too: a hostile feed's description may be megabytes of nested tags.
  const text = convert(html.length > max * 20 ? html.slice(0, max * 20) : html);
  return capped(text.replace(/\s+/g, ' ').trim(), max);
}

/** Text that is meant to be plain (an iCal DESCRIPTION) but may carry HTML, as some calendar servers send it. */
export function plainTextOf(text: string | null | undefined, max = maxTextLength): string {
  if (!text) return '';
  if (/<\/?[a-z!][^>]*>|&[a-z#0-9]+;/i.test(text)) return plainText(text, max);
  return capped(text.replace(/\r\n?/g, '\n').trim(), max);
}

/** FEED-5: the longest URL passed on. */
export const maxUrlLength = 2048;

/** FEED-5: `value` as an absolute http(s) URL (resolved against `base` when relative), or null: never javascript:, data:, …, nor one longer than 2048. */
export function httpUrl(value: string | null | undefined, base?: string): string | null {
  if (!value) return null;
  try {
    const url = new URL(value.trim(), base);
    const shown = url.toString();
    return (url.protocol === 'http:' || url.protocol === 'https:') && shown.length <= maxUrlLength ? shown : null;
  } catch {
    return null;
  }
}
