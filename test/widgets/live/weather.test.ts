/**
 * The weather widget's and the clock's weather (WX-1..WX-5) from Open-Meteo. These machines have no internet, so the
 * client is pointed (OPEN_METEO_URL, here the context's `sources.openMeteoUrl`) at a local stand-in that serves an
 * answer of the real API's shape: fixtures/open-meteo-forecast.json, written after the field names and units of
 * Open-Meteo's `/v1/forecast` documentation. The stand-in records what it was asked, so the request's parameters are
 * checked too.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { loadConfig, ConfigError } from '../../../src/config/config';
import { forecastUrl, weatherDescription, weatherFromAnswer } from '../../../src/integrations/clients/openMeteo';
import type { ClientContext } from '../../../src/integrations/clients/types';
import { outboundFetch } from '../../../src/outbound/fetch';
import { clockKind, locationSource, weatherKind } from '../../../src/widgets/data/kinds/weather';
import { startHttpFixture, type HttpFixture } from '../../support/httpFixture';

const recorded = readFileSync(path.join(__dirname, 'fixtures', 'open-meteo-forecast.json'), 'utf8');
const berlin = { name: 'Berlin', latitude: 52.52, longitude: 13.405 };

describe('weather: pure parts', () => {
  it('WX-1: OPEN_METEO_URL defaults to the public API and must be an http(s) base URL', () => {
    expect(loadConfig({}).openMeteoUrl).toBe('https://api.open-meteo.com');
    expect(loadConfig({ OPEN_METEO_URL: 'http://meteo.lan:8080/' }).openMeteoUrl).toBe('http://meteo.lan:8080');
    expect(() => loadConfig({ OPEN_METEO_URL: 'ftp://meteo.lan' })).toThrow(ConfigError);
    expect(() => loadConfig({ OPEN_METEO_URL: 'https://meteo.lan/?key=1' })).toThrow(ConfigError);
  });

  it('WX-1: the request asks for current and daily fields in °C and km/h, 7 days, in the location\'s time zone', () => {
    const url = new URL(forecastUrl('http://meteo.lan/', { latitude: 52.52, longitude: 13.405 }));
    expect(url.pathname).toBe('/v1/forecast');
    expect(Object.fromEntries(url.searchParams)).toEqual({
      latitude: '52.52',
      longitude: '13.405',
      current: 'temperature_2m,weather_code,wind_speed_10m,is_day',
      daily: 'weather_code,temperature_2m_max,temperature_2m_min',
      timezone: 'auto',
      forecast_days: '7',
      temperature_unit: 'celsius',
      wind_speed_unit: 'kmh',
    });
  });

  it('WX-2: weather codes as words; an unknown code says so', () => {
    expect(weatherDescription(0)).toBe('Clear sky');
    expect(weatherDescription(95)).toBe('Thunderstorm');
    expect(weatherDescription(42)).toBe('Unknown');
  });

  it('WX-2: an answer of the wrong shape is a bad-answer ServiceError, never passed on', () => {
    expect(() => weatherFromAnswer({ current: { temperature_2m: '<b>hot</b>' } })).toThrow("Open-Meteo's answer has no current temperature");
    const answer = JSON.parse(recorded);
    answer.daily.temperature_2m_max = [1];
    expect(() => weatherFromAnswer(answer)).toThrow("Open-Meteo's answer has no daily temperature_2m_max");
    expect(() => weatherFromAnswer([])).toThrow('current weather');
    const base = JSON.parse(recorded);
    const hostile = { ...base, timezone: '<script>alert(1)</script>', current: { ...base.current, time: '<b>now</b>' } };
    expect(weatherFromAnswer(hostile).timezone).toBeNull();
    expect(weatherFromAnswer(hostile).current.time).toBe('');
    expect(() => weatherFromAnswer({ ...base, current: { ...base.current, weather_code: 3.5 } })).toThrow('current weather code');
  });

  it('WX-3: one source per location, rounded to 4 decimals; no valid location is a source that explains itself', () => {
    expect(locationSource(berlin)).toEqual({ key: '52.5200,13.4050', name: 'Berlin' });
    expect(locationSource({ name: 'Nowhere', latitude: 91, longitude: 0 }).key).toBe('invalid-location');
    expect(locationSource(undefined).key).toBe('invalid-location');
    expect(clockKind.sources!({ showWeather: false, weatherLocation: berlin })).toEqual([]);
    expect(clockKind.sources!({ showWeather: true, weatherLocation: berlin })).toEqual([{ key: '52.5200,13.4050', name: 'Berlin' }]);
  });
});

describe('weather: a local stand-in for Open-Meteo', () => {
  let server: HttpFixture;
  let ctx: ClientContext;
  beforeAll(async () => {
    server = await startHttpFixture({ '/v1/forecast': { headers: { 'content-type': 'application/json; charset=utf-8' }, body: recorded } });
    ctx = { fetch: outboundFetch, timeoutMs: 30_000, maxBytes: 1024 * 1024, now: () => new Date(), sources: { openMeteoUrl: server.url, feedAllowLocal: false } };
  });
  afterAll(() => server?.close());

  it('WX-2, WX-4: current conditions in °C with words, daily min/max for forecastDayCount days, the city when showCity', async () => {
    const [source] = weatherKind.sources!({ location: berlin });
    const data = await weatherKind.fromSource!(ctx, source, weatherKind.query({}));
    expect(server.requests.at(-1)?.path).toBe(`/v1/forecast${new URL(forecastUrl(server.url, { latitude: 52.52, longitude: 13.405 })).search}`);
    expect(data.current).toEqual({ time: '2026-11-28T22:45', temperatureC: 3.4, weatherCode: 3, description: 'Overcast', windSpeedKmh: 11.2, isDay: false });
    expect(data.timezone).toBe('Europe/Berlin');
    expect(data.daily).toHaveLength(7);

    const shown = weatherKind.view!(data, { location: berlin, forecastDayCount: 3, showCity: true });
    expect(shown.city).toBe('Berlin');
    expect(shown.daily).toEqual([
      { date: '2026-11-28', weatherCode: 3, description: 'Overcast', minC: 0.4, maxC: 5.1 },
      { date: '2026-11-29', weatherCode: 61, description: 'Slight rain', minC: 2.2, maxC: 6.3 },
      { date: '2026-11-30', weatherCode: 80, description: 'Slight rain showers', minC: 1, maxC: 4.8 },
    ]);
    expect(weatherKind.view!(data, { location: berlin }).city).toBeNull();
    expect(weatherKind.view!(data, { location: berlin }).daily).toHaveLength(5);
    expect(weatherKind.view!(data, { location: berlin, hasForecast: false }).daily).toEqual([]);
  });

  it('WX-5: the clock\'s weather: current conditions at weatherLocation, no forecast', async () => {
    const [source] = clockKind.sources!({ showWeather: true, weatherLocation: berlin });
    const shown = clockKind.view!(await clockKind.fromSource!(ctx, source, {}), { showWeather: true, weatherLocation: berlin });
    expect(shown.current.description).toBe('Overcast');
    expect(shown.daily).toEqual([]);
    expect(shown.city).toBe('Berlin');
  });

  it('WX-2: Open-Meteo\'s error answer (HTTP 400 with a reason) and a widget without a location are ServiceErrors', async () => {
    server.set('/v1/forecast', { status: 400, headers: { 'content-type': 'application/json' }, body: JSON.stringify({ error: true, reason: 'Latitude must be in range of -90 to 90°. Given: 91.0.' }) });
    try {
      await expect(weatherKind.fromSource!(ctx, locationSource(berlin), {})).rejects.toMatchObject({ reason: 'failed', message: 'Open-Meteo answered HTTP 400: Latitude must be in range of -90 to 90°. Given: 91.0.' });
      server.set('/v1/forecast', { status: 502, headers: { 'content-type': 'text/html' }, body: '<html>Bad gateway</html>' });
      await expect(weatherKind.fromSource!(ctx, locationSource(berlin), {})).rejects.toMatchObject({ reason: 'bad-answer' });
    } finally {
      server.set('/v1/forecast', { headers: { 'content-type': 'application/json' }, body: recorded });
    }
    const before = server.requests.length;
    await expect(weatherKind.fromSource!(ctx, locationSource({}), {})).rejects.toMatchObject({ reason: 'failed', message: 'the widget has no valid location (latitude from -90 to 90, longitude from -180 to 180)' });
    expect(server.requests.length).toBe(before);
  });
});
