/**
 * LIVEVIEW-9 `weather` and the clock's weather line (WX-1..5): the current temperature in °C or °F (whole degrees when
 * `disableTemperatureDecimals`), the sky in words, the wind in km/h or mph when `showCurrentWindSpeed`, the city when
 * the server sent it, and the forecast days.
 */
import type { components } from '../../../../generated/api';
import { el } from '../dom';
import { flag } from '../widgets/types';
import type { LiveView } from './controller';
import { formatTemperature, formatWind, parseWhen } from './format';
import { perResult } from './parts';

type Weather = components['schemas']['WeatherData'];

const noLocation = () => 'No place chosen: set this widget’s location (name, latitude and longitude).';

export const weatherView: LiveView = {
  empty: noLocation,
  draw: (results, item) => {
    const fahrenheit = flag(item.options, 'isFormatFahrenheit', false);
    const whole = flag(item.options, 'disableTemperatureDecimals', false);
    const temperature = (celsius: number) => formatTemperature(celsius, fahrenheit, whole);
    return perResult<Weather>(results, (data) => [
      ...(data.city ? [el('div', { className: 'live-city', text: data.city })] : []),
      el('div', { className: 'live-now' }, [
        el('span', { className: 'live-temperature', text: temperature(data.current.temperatureC) }),
        el('span', { className: 'live-sky', text: data.current.description }),
      ]),
      ...(flag(item.options, 'showCurrentWindSpeed', false)
        ? [el('div', { className: 'live-wind', text: `Wind ${formatWind(data.current.windSpeedKmh, flag(item.options, 'useImperialSpeed', false))}` })]
        : []),
      ...(data.daily.length > 0
        ? [
            el(
              'ul',
              { className: 'live-forecast' },
              data.daily.map((day) => {
                const date = parseWhen(day.date);
                return el('li', {}, [
                  el('span', { className: 'live-when', text: date ? date.toLocaleDateString(undefined, { weekday: 'short', day: 'numeric' }) : day.date }),
                  el('span', { className: 'live-sky', text: day.description }),
                  el('span', { className: 'live-range', text: `${temperature(day.minC)} – ${temperature(day.maxC)}` }),
                ]);
              }),
            ),
          ]
        : []),
    ]);
  },
};

/** The clock's weather line (WX-5): the temperature and the sky at `weatherLocation`. */
export const clockWeatherView: LiveView = {
  empty: noLocation,
  draw: (results, item) => {
    const fahrenheit = flag(item.options, 'isWeatherFormatFahrenheit', false);
    return perResult<Weather>(results, (data) => [
      el('span', { className: 'live-clock-weather', text: `${formatTemperature(data.current.temperatureC, fahrenheit, true)} · ${data.current.description}${data.city ? ` · ${data.city}` : ''}` }),
    ]);
  },
};
