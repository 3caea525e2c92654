/** The error a promise rejects with; the test fails when it resolves instead. */
export async function failure(promise: Promise<unknown>): Promise<{ status: number; code: string; message: string }> {
  try {
    await promise;
  } catch (error) {
    return error as { status: number; code: string; message: string };
  }
  throw new Error('expected the call to fail');
}
