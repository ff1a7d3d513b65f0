;; echo: the smallest skill there is. A WASI preview 1 command that copies its
;; input (a JSON document on stdin) to stdout. Used by the overhead benchmark
;; (scripts/bench/composite.sh). Rebuild: wat2wasm echo.wat -o echo.wasm
(module
  (import "wasi_snapshot_preview1" "fd_read"
    (func $fd_read (param i32 i32 i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "fd_write"
    (func $fd_write (param i32 i32 i32 i32) (result i32)))
  (memory (export "memory") 2)
  ;; 0: iovec {buf = 1024, len}; 8: count read/written; 1024…: a 64 KiB buffer
  (func (export "_start")
    (local $n i32)
    (block $done
      (loop $copy
        (i32.store (i32.const 0) (i32.const 1024))
        (i32.store (i32.const 4) (i32.const 65536))
        (br_if $done (call $fd_read (i32.const 0) (i32.const 0) (i32.const 1) (i32.const 8)))
        (local.set $n (i32.load (i32.const 8)))
        (br_if $done (i32.eqz (local.get $n)))
        (i32.store (i32.const 4) (local.get $n))
        (drop (call $fd_write (i32.const 1) (i32.const 0) (i32.const 1) (i32.const 8)))
        (br $copy)))))
