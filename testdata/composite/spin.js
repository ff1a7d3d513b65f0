// spin: burns CPU for input.loops iterations (forever when input.loops < 0),
// to give steps a duration without a clock.
function main(input) {
  var x = 0;
  for (var i = 0; input.loops < 0 || i < input.loops; i++) {
    x = (x + i) % 1000003;
  }
  return { loops: input.loops, x: x };
}
