/** NAV-1, NAV-2: the home-board rule and the phone test, pure (no HTTP, no database). */
import { isPhoneRequest, resolveHomeBoard, type HomeCandidates } from '../../src/boards/home/resolve';

const none = { homeBoardId: null, mobileHomeBoardId: null };
const candidates = (over: Partial<HomeCandidates>): HomeCandidates => ({ user: none, groups: [], server: none, ...over });

describe('NAV-1: home board resolution', () => {
  it('the user first: its mobile board on a phone, else its desktop board', () => {
    const c = candidates({ user: { homeBoardId: 'desk', mobileHomeBoardId: 'phone' }, server: { homeBoardId: 'srv', mobileHomeBoardId: 'srv-m' } });
    expect([resolveHomeBoard(c, 'desktop'), resolveHomeBoard(c, 'mobile')]).toEqual(['desk', 'phone']);
    const deskOnly = candidates({ user: { homeBoardId: 'desk', mobileHomeBoardId: null }, server: { homeBoardId: 'srv', mobileHomeBoardId: 'srv-m' } });
    expect(resolveHomeBoard(deskOnly, 'mobile')).toBe('desk');
  });

  it('then the groups by position, then the server setting; none is null', () => {
    const groups = [
      { homeBoardId: 'g2', mobileHomeBoardId: null, position: 2 },
      { homeBoardId: null, mobileHomeBoardId: 'g1-m', position: 1 },
    ];
    const c = candidates({ groups, server: { homeBoardId: 'srv', mobileHomeBoardId: 'srv-m' } });
    expect([resolveHomeBoard(c, 'desktop'), resolveHomeBoard(c, 'mobile')]).toEqual(['g2', 'g1-m']);
    const serverOnly = candidates({ user: null, server: { homeBoardId: 'srv', mobileHomeBoardId: 'srv-m' } });
    expect([resolveHomeBoard(serverOnly, 'desktop'), resolveHomeBoard(serverOnly, 'mobile')]).toEqual(['srv', 'srv-m']);
    expect(resolveHomeBoard(candidates({}), 'mobile')).toBeNull();
  });
});

describe('NAV-2: a phone request', () => {
  it.each([
    [{ 'sec-ch-ua-mobile': '?1' }, true],
    [{ 'user-agent': 'Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 Chrome/124.0 Mobile Safari/537.36' }, true],
    [{ 'user-agent': 'Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X)' }, true],
    [{ 'sec-ch-ua-mobile': '?0', 'user-agent': 'Mozilla/5.0 (X11; Linux x86_64) HeadlessChrome/140' }, false],
    [{ 'user-agent': 'Mozilla/5.0 (Linux; Android 14; Tablet) AppleWebKit/537.36 Chrome/124.0 Safari/537.36' }, false],
    [{}, false],
  ])('%j is a phone: %s', (headers, phone) => {
    expect(isPhoneRequest(headers)).toBe(phone);
  });
});
