;; echo.wasm, hand-assembled (no toolchain needed): the smallest WASI
;; preview 1 command that copies stdin to stdout. The benchmark's "trivial
;; wasm skill" without a language runtime; echo/main.go is the Go one.
(module
  (import "wasi_snapshot_preview1" "fd_read" (func $fd_read (param i32 i32 i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "fd_write" (func $fd_write (param i32 i32 i32 i32) (result i32)))
  (memory (export "memory") 2)
  (func (export "_start")
    (local $n i32)
    (block $done
      (loop $copy
        (i32.store (i32.const 0) (i32.const 1024))   ;; iovec.buf
        (i32.store (i32.const 4) (i32.const 64512))  ;; iovec.len
        (br_if $done (call $fd_read (i32.const 0) (i32.const 0) (i32.const 1) (i32.const 8)))
        (br_if $done (i32.eqz (local.tee $n (i32.load (i32.const 8)))))
        (i32.store (i32.const 4) (local.get $n))
        (drop (call $fd_write (i32.const 1) (i32.const 0) (i32.const 1) (i32.const 12)))
        (br $copy)))))
