// upper: {text} → {text: TEXT, length}
function main(input) {
  var t = String(input.text);
  return { text: t.toUpperCase(), length: t.length };
}
