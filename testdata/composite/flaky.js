// flaky: fails while input.attempt <= input.fail, then succeeds. The workflow
// passes $.attempt, so the skill itself stays stateless.
function main(input) {
  if (input.attempt <= input.fail) {
    throw new Error("flaky: attempt " + input.attempt + " fails (the first " + input.fail + " do)");
  }
  return { attempt: input.attempt };
}
