/** Asserts an error answer: status, `code`, `message` (when given) and a `data` object. */
export function expectError(result: { status: number; body: any }, status: number, code: string, message?: string): void {
  expect({ status: result.status, code: result.body?.code, ...(message !== undefined ? { message: result.body?.message } : {}) }).toEqual({
    status,
    code,
    ...(message !== undefined ? { message } : {}),
  });
  expect(result.body.data).toEqual(expect.any(Object));
}
