/** The error a promise rejects with; the test fails when it resolves instead. */
export async function failure(promise: Promise<unknown>): Promise<{ status: number; code: string; message: string }> {
  try {
    await promise;
  } catch (error) {
    return error as { status: number; code: string; message: string };
  }
  throw new Error('expected the call to fail');
}

/** The error `run` throws, which must be an `ErrorClass`; the test fails when it returns or throws anything else. */
export function thrownBy<E>(ErrorClass: abstract new (...args: never[]) => E, run: () => unknown): E {
  try {
    run();
  } catch (error) {
    if (error instanceof ErrorClass) return error;
    throw error;
  }
  throw new Error(`expected a ${ErrorClass.name}`);
}
