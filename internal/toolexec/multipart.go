package toolexec

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime/multipart"
	"net/textproto"
	"os"
	"path/filepath"
	"strings"
)

// bodyFiles says where multipart file fields may be read from, and how much.
type bodyFiles struct {
	dir string // "" refuses @PATH
	max int64
}

func (h *HTTPRunner) bodyFiles() bodyFiles {
	max := h.MaxRequest
	if max <= 0 {
		max = 10 << 20
	}
	return bodyFiles{dir: h.FilesDir, max: max}
}

// bodySchema is the schema of the "body" property of a tool's parameters.
func bodySchema(params any) map[string]any {
	s, _ := params.(map[string]any)
	props, _ := s["properties"].(map[string]any)
	b, _ := props["body"].(map[string]any)
	return b
}

// encodeMultipart writes an object as multipart/form-data: one part per
// field, one per element of an array, objects as JSON parts. A field whose
// schema is binary (format: binary, or a contentMediaType without
// contentEncoding) is a file: "@PATH" (under bodyFiles.dir) or its bytes in
// base64. A field with contentEncoding: base64 is sent as base64 text, and
// "@PATH" is read and encoded. It returns the body and its Content-Type.
func encodeMultipart(b any, schema map[string]any, files bodyFiles) ([]byte, string, error) {
	obj, ok := b.(map[string]any)
	if !ok {
		return nil, "", errors.New("a multipart/form-data body must be an object")
	}
	props, _ := schema["properties"].(map[string]any)
	var buf bytes.Buffer
	w := multipart.NewWriter(&buf)
	for _, k := range sortedKeys(obj) {
		fs, _ := props[k].(map[string]any)
		vals := []any{obj[k]}
		if l, ok := obj[k].([]any); ok {
			vals = l
			if items, ok := fs["items"].(map[string]any); ok {
				fs = items
			}
		}
		for _, v := range vals {
			if err := writePart(w, k, v, fs, files); err != nil {
				return nil, "", err
			}
			if int64(buf.Len()) > files.max {
				return nil, "", fmt.Errorf("the multipart body is over the %d-byte limit of a request", files.max)
			}
		}
	}
	if err := w.Close(); err != nil {
		return nil, "", err
	}
	return buf.Bytes(), w.FormDataContentType(), nil
}

func writePart(w *multipart.Writer, name string, v any, fs map[string]any, files bodyFiles) error {
	h := textproto.MIMEHeader{}
	disp := fmt.Sprintf(`form-data; name="%s"`, quoteEscaper.Replace(name))
	format, _ := fs["format"].(string)
	encoding, _ := fs["contentEncoding"].(string)
	mediaType, _ := fs["contentMediaType"].(string)
	binary := format == "binary" || mediaType != "" && encoding == ""
	base64Text := strings.EqualFold(encoding, "base64")
	var data []byte
	switch x := v.(type) {
	case string:
		if !binary && !base64Text {
			data = []byte(x)
			break
		}
		filename := name
		if path, ok := strings.CutPrefix(x, "@"); ok {
			content, err := readFile(path, files)
			if err != nil {
				return fmt.Errorf("field %s: %w", name, err)
			}
			data, filename = content, filepath.Base(path)
		} else if binary {
			dec, err := base64.StdEncoding.DecodeString(x)
			if err != nil {
				return fmt.Errorf("field %s is a file: give it as @PATH or as base64 (%v)", name, err)
			}
			data = dec
		} else {
			data = []byte(x) // already base64
		}
		if base64Text && strings.HasPrefix(x, "@") {
			data = []byte(base64.StdEncoding.EncodeToString(data))
		}
		if binary {
			disp += fmt.Sprintf(`; filename="%s"`, quoteEscaper.Replace(filename))
			if mediaType == "" {
				mediaType = "application/octet-stream"
			}
			h.Set("Content-Type", mediaType)
		}
	case map[string]any, []any:
		js, err := json.Marshal(x)
		if err != nil {
			return err
		}
		data = js
		h.Set("Content-Type", "application/json")
	default:
		data = []byte(scalar(v))
	}
	h.Set("Content-Disposition", disp)
	pw, err := w.CreatePart(h)
	if err != nil {
		return err
	}
	_, err = pw.Write(data)
	return err
}

var quoteEscaper = strings.NewReplacer("\\", "\\\\", `"`, "\\\"", "\r", "", "\n", "")

// readFile reads path, relative to files.dir and inside it, up to files.max bytes.
func readFile(path string, files bodyFiles) ([]byte, error) {
	if files.dir == "" {
		return nil, fmt.Errorf("@%s: files are read only from the directory given with --files; give the content in base64 instead", path)
	}
	root, err := os.OpenRoot(files.dir)
	if err != nil {
		return nil, err
	}
	defer root.Close()
	f, err := root.Open(path)
	if err != nil {
		return nil, fmt.Errorf("@%s: %w", path, err)
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, files.max+1))
	if err != nil {
		return nil, fmt.Errorf("@%s: %w", path, err)
	}
	if int64(len(data)) > files.max {
		return nil, fmt.Errorf("@%s is over the %d-byte limit of a request", path, files.max)
	}
	return data, nil
}
