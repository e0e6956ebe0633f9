/**
 * WX-1..WX-3: the Open-Meteo forecast client (`GET /v1/forecast`, no key). Base URL from OPEN_METEO_URL. Asks for
 * the current temperature (°C), WMO weather code, wind speed (km/h) and day or night, and the daily minimum and
 * maximum for up to 7 days, in the location's own time zone.
 */
import type { ClientContext } from './types';
import { ServiceError } from './types';
import { plainText } from './text';

export interface WeatherDay {
  /** `YYYY-MM-DD` in the location's time zone. */
  date: string;
  weatherCode: number;
  description: string;
  minC: number;
  maxC: number;
}

export interface WeatherData {
  current: {
    /** Local time of the reading at the location (`YYYY-MM-DDTHH:MM`). */
    time: string;
    temperatureC: number;
    weatherCode: number;
    description: string;
    windSpeedKmh: number;
    isDay: boolean;
  };
  daily: WeatherDay[];
  /** The IANA zone Open-Meteo placed the location in. */
  timezone: string | null;
  /** The location's name from the widget's options (weather: when `showCity`); never from upstream. */
  city: string | null;
}

/** WX-2: the most forecast days asked (the `forecastDayCount` option's maximum). */
export const forecastDays = 7;

/** WX-2: WMO weather interpretation codes as Open-Meteo documents them, as words. */
const descriptions: Record<number, string> = {
  0: 'Clear sky',
  1: 'Mainly clear',
  2: 'Partly cloudy',
  3: 'Overcast',
  45: 'Fog',
  48: 'Depositing rime fog',
  51: 'Light drizzle',
  53: 'Moderate drizzle',
  55: 'Dense drizzle',
  56: 'Light freezing drizzle',
  57: 'Dense freezing drizzle',
  61: 'Slight rain',
  63: 'Moderate rain',
  65: 'Heavy rain',
  66: 'Light freezing rain',
  67: 'Heavy freezing rain',
  71: 'Slight snowfall',
  73: 'Moderate snowfall',
  75: 'Heavy snowfall',
  77: 'Snow grains',
  80: 'Slight rain showers',
  81: 'Moderate rain showers',
  82: 'Violent rain showers',
  85: 'Slight snow showers',
  86: 'Heavy snow showers',
  95: 'Thunderstorm',
  96: 'Thunderstorm with slight hail',
  99: 'Thunderstorm with heavy hail',
};

export function weatherDescription(code: number): string {
  return descriptions[code] ?? 'Unknown';
}

export interface Coordinates {
  latitude: number;
  longitude: number;
}

/** WX-1: the forecast URL for `at` under `baseUrl`. Pure. */
export function forecastUrl(baseUrl: string, at: Coordinates): string {
  const url = new URL(`${baseUrl.replace(/\/+$/, '')}/v1/forecast`);
  url.searchParams.set('latitude', String(at.latitude));
  url.searchParams.set('longitude', String(at.longitude));
  url.searchParams.set('current', 'temperature_2m,weather_code,wind_speed_10m,is_day');
  url.searchParams.set('daily', 'weather_code,temperature_2m_max,temperature_2m_min');
  url.searchParams.set('timezone', 'auto');
  url.searchParams.set('forecast_days', String(forecastDays));
  url.searchParams.set('temperature_unit', 'celsius');
  url.searchParams.set('wind_speed_unit', 'kmh');
  return url.toString();
}

export async function fetchForecast(ctx: ClientContext, baseUrl: string, at: Coordinates): Promise<WeatherData> {
  const answer = await ctx.fetch(forecastUrl(baseUrl, at), { headers: { accept: 'application/json' }, timeoutMs: ctx.timeoutMs, maxBytes: Math.min(ctx.maxBytes, 256 * 1024) });
  let body: unknown;
  try {
    body = JSON.parse(answer.text);
  } catch {
    throw new ServiceError('bad-answer', `Open-Meteo answered HTTP ${answer.status} with something that is not JSON`);
  }
  if (answer.status < 200 || answer.status > 299) {
    const reason = isObject(body) && typeof body.reason === 'string' ? `: ${plainText(body.reason, 200)}` : '';
    throw new ServiceError('failed', `Open-Meteo answered HTTP ${answer.status}${reason}`);
  }
  return weatherFromAnswer(body);
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);
const isNumber = (value: unknown): value is number => typeof value === 'number' && Number.isFinite(value);
/** WMO weather interpretation codes are 0 to 99. */
const isCode = (value: unknown): value is number => Number.isInteger(value) && (value as number) >= 0 && (value as number) <= 99;


/** WX-2: Open-Meteo's answer as data, its shape checked (a wrong shape is a `bad-answer`, never passed on). Pure. */
export function weatherFromAnswer(body: unknown): WeatherData {
  const wrong = (what: string) => new ServiceError('bad-answer', `Open-Meteo's answer has no ${what}`);
  if (!isObject(body) || !isObject(body.current)) throw wrong('current weather');
  const { current, daily } = body;
  if (!isNumber(current.temperature_2m)) throw wrong('current temperature');
  if (!isCode(current.weather_code)) throw wrong('current weather code');
  if (!isNumber(current.wind_speed_10m)) throw wrong('current wind speed');
  if (!isObject(daily) || !Array.isArray(daily.time) || !daily.time.every((day) => typeof day === 'string' && /^\d{4}-\d{2}-\d{2}$/.test(day))) throw wrong('daily dates');
  const count = daily.time.length;
  for (const field of ['weather_code', 'temperature_2m_max', 'temperature_2m_min'] as const) {
    const values = daily[field];
    // Open-Meteo sends null for a value it does not have; such a day is left out below.
    const fits = field === 'weather_code' ? isCode : isNumber;
    if (!Array.isArray(values) || values.length !== count || !values.every((value) => value === null || fits(value))) throw wrong(`daily ${field}`);
  }
  const days: WeatherDay[] = [];
  for (let i = 0; i < Math.min(count, forecastDays); i++) {
    const code = (daily.weather_code as (number | null)[])[i];
    const max = (daily.temperature_2m_max as (number | null)[])[i];
    const min = (daily.temperature_2m_min as (number | null)[])[i];
    if (code === null || max === null || min === null) continue;
    days.push({ date: daily.time[i] as string, weatherCode: code, description: weatherDescription(code), minC: min, maxC: max });
  }
  return {
    current: {
      time: typeof current.time === 'string' && /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2})?$/.test(current.time) ? current.time : '',
      temperatureC: current.temperature_2m,
      weatherCode: current.weather_code as number,
      description: weatherDescription(current.weather_code as number),
      windSpeedKmh: current.wind_speed_10m,
      isDay: current.is_day === 1 || current.is_day === true,
    },
    daily: days,
    timezone: typeof body.timezone === 'string' && /^[A-Za-z0-9_+\-/]{1,64}$/.test(body.timezone) ? body.timezone : null,
    city: null,
  };
}
