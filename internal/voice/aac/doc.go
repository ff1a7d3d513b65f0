// Package aac decodes MPEG-4 AAC-LC (ISO/IEC 14496-3, 13818-7) from ADTS
// streams and MP4/M4A files, in pure Go. HE-AAC (SBR, PS) and the other
// object types are reported as ErrUnsupported.
package aac

//go:generate go run ./internal/gen -src internal/gen/aac_rom.c.txt -out tables_gen.go
