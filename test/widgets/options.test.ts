/** Unit tests of the widget option tables (src/widgets/options.ts): no server. */
import { optionIssues, widgetOptions } from '../../src/widgets/options';
import { widgetKinds } from '../../src/widgets/registry';

describe('WIDGET-2: widget option tables', () => {
  it('every widget kind of the registry has a table, and only those', () => {
    expect(Object.keys(widgetOptions).sort()).toEqual([...widgetKinds].sort());
    const withoutOptions = Object.entries(widgetOptions).filter(([, table]) => Object.keys(table).length === 0).map(([kind]) => kind);
    expect(withoutOptions.sort()).toEqual(['firewall', 'mediaRequests-requestStats', 'networkControllerSummary', 'vpn']);
  });

  it('a misspelled clock option is reported once, with the option meant', () => {
    expect(optionIssues('clock', { is24hourformat: true })).toEqual([
      { code: 'UNKNOWN_OPTION', path: '/options/is24hourformat', message: 'option "is24hourformat" is not an option of clock widgets (did you mean "is24HourFormat"?)' },
    ]);
    expect(optionIssues('clock', { showSecnds: true })[0].message).toContain('(did you mean "showSeconds"?)');
    expect(optionIssues('clock', { somethingElse: 1 })[0].message).toBe('option "somethingElse" is not an option of clock widgets');
  });

  it('values of the wrong type, outside the allowed values or bounds are reported with their JSON pointer', () => {
    expect(optionIssues('clock', { showSeconds: 'yes', dateFormat: 'YYYY', weatherLocation: { name: 'x' } }).map((issue) => [issue.code, issue.path])).toEqual([
      ['OPTION_TYPE', '/options/showSeconds'],
      ['OPTION_TYPE', '/options/dateFormat'],
      ['OPTION_TYPE', '/options/weatherLocation'],
    ]);
    expect(optionIssues('weather', { forecastDayCount: 9 })).toEqual([
      { code: 'OPTION_TYPE', path: '/options/forecastDayCount', message: 'option "forecastDayCount" expects a number from 1 to 7, got 9' },
    ]);
    expect(optionIssues('systemResources', { visibleCharts: ['cpu', 'disk'] })[0].code).toBe('OPTION_TYPE');
    expect(optionIssues('clock', { 'a/b~c': 1 })[0].path).toBe('/options/a~1b~0c');
  });

  it('the default options of a clock, a weather and an app widget give no issues; unknown kinds are not checked', () => {
    expect(
      optionIssues('clock', {
        customTitleToggle: false,
        customTitle: '',
        is24HourFormat: true,
        showSeconds: false,
        useCustomTimezone: false,
        timezone: 'Europe/London',
        showDate: true,
        dateFormat: 'dddd, MMMM D',
        customTimeFormat: '',
        customDateFormat: '',
        showWeather: false,
        weatherLocation: { name: 'Brisbane', latitude: -27.4698, longitude: 153.0251 },
        isWeatherFormatFahrenheit: false,
      }),
    ).toEqual([]);
    expect(optionIssues('weather', { location: { name: 'Paris', latitude: 48.85341, longitude: 2.3488 }, forecastDayCount: 5, hasForecast: false })).toEqual([]);
    expect(optionIssues('app', { appId: 'x', openInNewTab: true, descriptionDisplayMode: 'hidden', layout: 'column' })).toEqual([]);
    expect(optionIssues('retiredWidget', { anything: 1 })).toEqual([]);
    expect(optionIssues('clock', null)).toEqual([]);
  });
});
