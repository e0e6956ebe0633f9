/**
 * The live kinds' data as declared (openapi/components/widget-data/*.yaml): what the calendar, feed and weather
 * clients make of real-world-shaped answers, and of hostile ones, fits its schema (bounded lengths and counts, no
 * property undeclared), and each schema's example fits too.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { parse } from 'yaml';
import { eventsFromIcs } from '../../../src/integrations/clients/ical';
import { feedFromXml } from '../../../src/integrations/clients/feed';
import { weatherFromAnswer } from '../../../src/integrations/clients/openMeteo';
import { feedView } from '../../../src/widgets/data/kinds/rssFeed';
import { clockWeatherView, weatherView } from '../../../src/widgets/data/kinds/weather';

const dir = path.join(__dirname, '../../../openapi/components/widget-data');
const ajv = new Ajv2020({ strict: false, allErrors: true });
addFormats(ajv);
for (const file of ['calendar.yaml', 'rssFeed.yaml', 'weather.yaml', 'clock.yaml']) {
  ajv.addSchema(parse(readFileSync(path.join(dir, file), 'utf8')), `https://tessera.test/widget-data/${file}`);
}
function fits(ref: string, data: unknown): void {
  const validate = ajv.getSchema(`https://tessera.test/widget-data/${ref}`);
  if (!validate) throw new Error(`no schema ${ref}`);
  const ok = validate(data);
  expect(ok ? [] : validate.errors).toEqual([]);
}
const fixture = (name: string) => readFileSync(path.join(__dirname, 'fixtures', name), 'utf8');
const example = (file: string, name: string) => parse(readFileSync(path.join(dir, file), 'utf8'))[name].example;

describe('widget data schemas', () => {
  it('FEED-4: the schemas refuse what they should: a property undeclared, a string past its bound', () => {
    const feed = ajv.getSchema('https://tessera.test/widget-data/rssFeed.yaml#/FeedData')!;
    expect(feed({ title: 't', link: null, items: [{ title: 'i', link: null, published: null, summary: null, image: null, html: '<b>x</b>' }] })).toBe(false);
    expect(feed({ title: 't'.repeat(301), link: null, items: [] })).toBe(false);
    const clock = ajv.getSchema('https://tessera.test/widget-data/clock.yaml#/ClockData')!;
    expect(clock({ current: {}, daily: [], timezone: null, city: null })).toBe(false);
  });

  it('CAL-2, CAL-3: calendar data fits CalendarData, hostile lengths capped', () => {
    const long = 'x'.repeat(10_000);
    const ics = [
      'BEGIN:VCALENDAR',
      'VERSION:2.0',
      'PRODID:-//t//EN',
      'BEGIN:VEVENT',
      'UID:a@t',
      'DTSTAMP:20261128T000000Z',
      'DTSTART:20261201T100000Z',
      'DTEND:20261201T110000Z',
      `SUMMARY:${long}`,
      `LOCATION:${long}`,
      `DESCRIPTION:<b>${long}</b>`,
      `URL:https://example.test/${long}`,
      'END:VEVENT',
      'BEGIN:VEVENT',
      'UID:b@t',
      'DTSTAMP:20261128T000000Z',
      'DTSTART;VALUE=DATE:20261224',
      'SUMMARY:Holiday',
      'END:VEVENT',
      'END:VCALENDAR',
    ].join('\r\n');
    const data = eventsFromIcs(ics, { start: new Date('2026-11-01T00:00:00Z'), end: new Date('2027-01-01T00:00:00Z') });
    expect(data.events).toHaveLength(2);
    fits('calendar.yaml#/CalendarData', data);
    fits('calendar.yaml#/CalendarData', example('calendar.yaml', 'CalendarData'));
  });

  it('FEED-2, FEED-6: feed data fits FeedData, before and after the view', () => {
    for (const name of ['rss2.xml', 'atom.xml', 'rss1.xml']) {
      const data = feedFromXml(fixture(name), 'https://feeds.example/feed.xml');
      fits('rssFeed.yaml#/FeedData', data);
      fits('rssFeed.yaml#/FeedData', feedView(data, { maximumAmountPosts: 1, hideDescription: true, showPosterImage: true }));
    }
    const many = `<rss version="2.0"><channel><title>${'t'.repeat(5000)}</title><item><title>far</title><pubDate>Sat, 01 Jan 99999 00:00:00 GMT</pubDate></item>${'<item><title>i</title><link>https://x.example/</link></item>'.repeat(300)}</channel></rss>`;
    const data = feedFromXml(many, 'https://feeds.example/feed.xml');
    expect(data.items).toHaveLength(100);
    fits('rssFeed.yaml#/FeedData', data);
    fits('rssFeed.yaml#/FeedData', example('rssFeed.yaml', 'FeedData'));
  });

  it('WX-2, WX-4, WX-5: weather data fits WeatherData and ClockData', () => {
    const data = weatherFromAnswer(JSON.parse(fixture('open-meteo-forecast.json')));
    fits('weather.yaml#/WeatherData', data);
    fits('weather.yaml#/WeatherData', weatherView(data, { showCity: true, location: { name: 'B'.repeat(500), latitude: 1, longitude: 2 }, forecastDayCount: 7 }));
    fits('clock.yaml#/ClockData', clockWeatherView(data, { showWeather: true, weatherLocation: { name: 'Berlin', latitude: 52.52, longitude: 13.405 } }));
    fits('weather.yaml#/WeatherData', example('weather.yaml', 'WeatherData'));
  });
});
