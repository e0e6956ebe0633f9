/**
 * WX-1..WX-5: the `weather` widget's live data and the `clock` widget's weather (`showWeather`), from Open-Meteo at
 * the location their options name. One source per location (rounded to 4 decimals, about 11 m), so every widget
 * showing one place shares one upstream request per TTL; the options only shape the view.
 */
import { fetchForecast, type WeatherData } from '../../../integrations/clients/openMeteo';
import { defaultSourceSettings } from '../../../integrations/clients/types';
import { ServiceError } from '../../../integrations/clients/types';
import type { DataSource, LiveKind, WidgetOptions } from '../types';

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);
const invalidKey = 'invalid-location';

/** WX-3: the source of a `location` option (`{name, latitude, longitude}`), or the invalid-location source. Pure. */
export function locationSource(location: unknown): DataSource {
  if (!isObject(location)) return { key: invalidKey, name: 'no location' };
  const { latitude, longitude } = location;
  if (typeof latitude !== 'number' || typeof longitude !== 'number' || !(Math.abs(latitude) <= 90) || !(Math.abs(longitude) <= 180)) {
    return { key: invalidKey, name: 'no location' };
  }
  const name = typeof location.name === 'string' && location.name.trim() !== '' ? location.name.trim().slice(0, 100) : 'location';
  return { key: `${latitude.toFixed(4)},${longitude.toFixed(4)}`, name };
}

async function fromLocation(ctx: Parameters<NonNullable<LiveKind['fromSource']>>[0], source: DataSource): Promise<WeatherData> {
  if (source.key === invalidKey) throw new ServiceError('failed', 'the widget has no valid location (latitude from -90 to 90, longitude from -180 to 180)');
  const [latitude, longitude] = source.key.split(',').map(Number);
  return fetchForecast(ctx, (ctx.sources ?? defaultSourceSettings).openMeteoUrl, { latitude, longitude });
}

/** WX-4: the days the weather widget shows (`forecastDayCount`, 1 to 7, default 5). */
export const defaultForecastDays = 5;

/** WX-4: the forecast for one weather item's options: `hasForecast`, `forecastDayCount`, `showCity`. Pure. */
export function weatherView(data: WeatherData, options: WidgetOptions): WeatherData {
  const count = typeof options.forecastDayCount === 'number' ? Math.min(7, Math.max(1, Math.floor(options.forecastDayCount))) : defaultForecastDays;
  const city = options.showCity === true ? locationSource(options.location).name : null;
  return { ...data, daily: options.hasForecast === false ? [] : data.daily.slice(0, count), city };
}

/** WX-5: the clock's weather: the current conditions only, at `weatherLocation`, when `showWeather`. Pure. */
export function clockWeatherView(data: WeatherData, options: WidgetOptions): WeatherData {
  return { ...data, daily: [], city: locationSource(options.weatherLocation).name };
}

export const weatherKind: LiveKind<WeatherData> = {
  widgetKind: 'weather',
  ttlMs: 15 * 60_000,
  integrationKinds: [],
  query: () => ({}),
  sources: (options) => [locationSource(options.location)],
  fromSource: fromLocation,
  view: weatherView,
};

export const clockKind: LiveKind<WeatherData> = {
  widgetKind: 'clock',
  ttlMs: 15 * 60_000,
  integrationKinds: [],
  query: () => ({}),
  // WX-5: a clock without showWeather reads nothing.
  sources: (options) => (options.showWeather === true ? [locationSource(options.weatherLocation)] : []),
  fromSource: fromLocation,
  view: clockWeatherView,
};
