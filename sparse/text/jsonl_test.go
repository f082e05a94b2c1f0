package text

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

func newTestParser() *jsonParser {
	return &jsonParser{labelKey: []byte("label"), textKey: []byte("text")}
}

func TestParseJSONLValid(t *testing.T) {
	tests := []struct {
		name, line  string
		label, text string
	}{
		{"minimal", `{"label":"pos","text":"good"}`, "pos", "good"},
		{"spaces", ` { "label" : "pos" , "text" : "good" } `, "pos", "good"},
		{"tabs and CR", "\t{\"label\":\t\"pos\",\r\"text\":\"good\"}\r", "pos", "good"},
		{"text first", `{"text":"good","label":"pos"}`, "pos", "good"},
		{"empty text", `{"label":"pos","text":""}`, "pos", ""},
		{"number label", `{"label":1,"text":"x"}`, "1", "x"},
		{"negative float label", `{"label":-2.5e+3,"text":"x"}`, "-2.5e+3", "x"},
		{"zero label", `{"label":0,"text":"x"}`, "0", "x"},
		{"fraction label", `{"label":0.5,"text":"x"}`, "0.5", "x"},
		{"other fields", `{"id":7,"split":"train","label":"neg","rating":3,"text":"bad","ok":true,"no":false,"nil":null}`, "neg", "bad"},
		{"nested other fields", `{"meta":{"a":[1,2,{"b":[[],{}]}],"c":{"d":"}"}},"label":"x","tags":["a","]",[]],"text":"t"}`, "x", "t"},
		{"empty containers", `{"a":{},"b":[],"c":[{}],"label":"x","text":"t"}`, "x", "t"},
		{"deep nesting", `{"a":` + strings.Repeat("[", 500) + strings.Repeat("]", 500) + `,"label":"x","text":"t"}`, "x", "t"},
		{"simple escapes", `{"label":"a\"b","text":"q\"\\\/\b\f\n\r\t"}`, `a"b`, "q\"\\/\b\f\n\r\t"},
		{"unicode escape", `{"label":"x","text":"caf\u00e9 \u00C9T\u00c9"}`, "x", "café ÉTÉ"},
		{"surrogate pair", `{"label":"x","text":"\ud83d\ude00!"}`, "x", "😀!"},
		{"lone high surrogate", `{"label":"x","text":"a\ud83db"}`, "x", "a\uFFFDb"},
		{"lone low surrogate", `{"label":"x","text":"a\ude00b"}`, "x", "a\uFFFDb"},
		{"high surrogate then non-surrogate escape", `{"label":"x","text":"\ud83d\u0041"}`, "x", "\uFFFDA"},
		{"two high surrogates", `{"label":"x","text":"\ud83d\ud83d\ude00"}`, "x", "\uFFFD😀"},
		{"raw UTF-8", `{"label":"ünï","text":"日本語"}`, "ünï", "日本語"},
		{"invalid UTF-8 replaced", "{\"label\":\"x\",\"text\":\"a\xffb\xc3\"}", "x", "a\uFFFDb\uFFFD"},
		{"escaped key", `{"l\u0061bel":"x","te\u0078t":"t"}`, "x", "t"},
		{"repeated field: last wins", `{"label":"a","text":"t1","label":"b","text":"t2"}`, "b", "t2"},
		{"repeated label: bad then good", `{"label":null,"text":"t","label":"ok"}`, "ok", "t"},
		{"keys differ in case", `{"Label":"no","label":"yes","TEXT":"no","text":"t"}`, "yes", "t"},
		{"escaped slash in other", `{"u":"http:\/\/x","label":"x","text":"t"}`, "x", "t"},
		{"number forms in other", `{"a":-0,"b":0.0e0,"c":1E+2,"d":12345678901234567890123,"label":"x","text":"t"}`, "x", "t"},
		{"long text", `{"label":"x","text":"` + strings.Repeat("ab c ", 1000) + `"}`, "x", strings.Repeat("ab c ", 1000)},
	}
	p := newTestParser()
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d, blank, le := p.parse([]byte(tc.line))
			if le != nil || blank {
				t.Fatalf("parse(%q): blank %v, error %v at col %d: %s", tc.line, blank, le.err, le.col, le.msg)
			}
			if string(d.label) != tc.label || string(d.text) != tc.text {
				t.Errorf("parse(%q) = (%q, %q), want (%q, %q)", tc.line, d.label, d.text, tc.label, tc.text)
			}
			// encoding/json agrees.
			var v map[string]json.RawMessage
			if err := json.Unmarshal([]byte(tc.line), &v); err != nil {
				t.Fatalf("encoding/json rejects %q: %v", tc.line, err)
			}
			var text string
			if err := json.Unmarshal(v["text"], &text); err != nil || text != tc.text {
				t.Errorf("encoding/json reads text %q (%v), want %q", text, err, tc.text)
			}
		})
	}
}

func TestParseJSONLBlank(t *testing.T) {
	p := newTestParser()
	for _, line := range []string{"", " ", "\t\r", " \r "} {
		if _, blank, le := p.parse([]byte(line)); !blank || le != nil {
			t.Errorf("parse(%q): blank = %v, err = %v; want a blank line", line, blank, le)
		}
	}
}

func TestParseJSONLErrors(t *testing.T) {
	tests := []struct {
		name, line string
		err        error
		col        int
	}{
		{"not an object", `["label","text"]`, ErrSyntax, 1},
		{"bare string", `"text"`, ErrSyntax, 1},
		{"garbage", `label=pos text=good`, ErrSyntax, 1},
		{"binary", "\x00\x01\x02", ErrSyntax, 1},
		{"unterminated object", `{"label":"x","text":"t"`, ErrSyntax, 24},
		{"missing colon", `{"label" "x","text":"t"}`, ErrSyntax, 10},
		{"missing value", `{"label":,"text":"t"}`, ErrSyntax, 10},
		{"missing comma", `{"label":"x" "text":"t"}`, ErrSyntax, 14},
		{"trailing comma", `{"label":"x","text":"t",}`, ErrSyntax, 25},
		{"leading comma", `{,"label":"x","text":"t"}`, ErrSyntax, 2},
		{"single quotes", `{'label':'x','text':'t'}`, ErrSyntax, 2},
		{"unquoted key", `{label:"x",text:"t"}`, ErrSyntax, 2},
		{"number key", `{1:"x"}`, ErrSyntax, 2},
		{"unterminated string", `{"label":"x","text":"t}`, ErrSyntax, 21},
		{"unterminated key", `{"label`, ErrSyntax, 2},
		{"raw newline char", "{\"label\":\"x\",\"text\":\"a\x01b\"}", ErrSyntax, 23},
		{"raw tab in string", "{\"label\":\"x\",\"text\":\"a\tb\"}", ErrSyntax, 23},
		{"bad escape", `{"label":"x","text":"a\qb"}`, ErrSyntax, 23},
		{"short unicode escape", `{"label":"x","text":"\u12"}`, ErrSyntax, 22},
		{"non-hex unicode escape", `{"label":"x","text":"\u12g4"}`, ErrSyntax, 22},
		{"backslash at end", `{"label":"x","text":"\`, ErrSyntax, 21},
		{"leading zero", `{"label":01,"text":"t"}`, ErrSyntax, 10},
		{"plus sign", `{"label":+1,"text":"t"}`, ErrSyntax, 10},
		{"bare minus", `{"label":-,"text":"t"}`, ErrSyntax, 10},
		{"dot without digits", `{"label":1.,"text":"t"}`, ErrSyntax, 10},
		{"leading dot", `{"label":.5,"text":"t"}`, ErrSyntax, 10},
		{"empty exponent", `{"label":1e,"text":"t"}`, ErrSyntax, 10},
		{"NaN", `{"label":NaN,"text":"t"}`, ErrSyntax, 10},
		{"Infinity", `{"a":Infinity,"label":"x","text":"t"}`, ErrSyntax, 6},
		{"hex number", `{"a":0x10,"label":"x","text":"t"}`, ErrSyntax, 6},
		{"number then letters", `{"a":12ab,"label":"x","text":"t"}`, ErrSyntax, 6},
		{"misspelled literal", `{"a":ture,"label":"x","text":"t"}`, ErrSyntax, 6},
		{"literal then letters", `{"a":nullx,"label":"x","text":"t"}`, ErrSyntax, 10},
		{"truncated literal", `{"a":tru`, ErrSyntax, 6},
		{"mismatched brackets", `{"a":[1,2},"label":"x","text":"t"}`, ErrSyntax, 10},
		{"unclosed array", `{"a":[1,2,"label":"x","text":"t"}`, ErrSyntax, 18},
		{"array trailing comma", `{"a":[1,],"label":"x","text":"t"}`, ErrSyntax, 9},
		{"nested missing colon", `{"a":{"b" 1},"label":"x","text":"t"}`, ErrSyntax, 11},
		{"nested unterminated", `{"a":{"b":[1`, ErrSyntax, 13},
		{"two objects", `{"label":"x","text":"t"}{"label":"y","text":"u"}`, ErrSyntax, 25},
		{"trailing garbage", `{"label":"x","text":"t"} x`, ErrSyntax, 26},
		{"type error hides no syntax error", `{"label":[1],"text":"t",}`, ErrSyntax, 25},
		{"empty object", `{}`, ErrMissingField, 1},
		{"missing label", ` {"text":"t"}`, ErrMissingField, 2},
		{"missing text", `{"label":"x","txt":"t"}`, ErrMissingField, 1},
		{"label null", `{"label":null,"text":"t"}`, ErrFieldType, 10},
		{"label bool", `{"label":true,"text":"t"}`, ErrFieldType, 10},
		{"label array", `{"label":["a"],"text":"t"}`, ErrFieldType, 10},
		{"label object", `{"label":{"a":1},"text":"t"}`, ErrFieldType, 10},
		{"text number", `{"label":"x","text":5}`, ErrFieldType, 21},
		{"text null", `{"label":"x","text":null}`, ErrFieldType, 21},
		{"text array", `{"label":"x","text":["a"]}`, ErrFieldType, 21},
		{"repeated label: good then bad", `{"label":"x","text":"t","label":null}`, ErrFieldType, 33},
		{"missing label beats bad text", `{"text":1}`, ErrMissingField, 1},
	}
	p := newTestParser()
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, _, le := p.parse([]byte(tc.line))
			if le == nil {
				t.Fatalf("parse(%q) accepted it", tc.line)
			}
			if !errors.Is(le.err, tc.err) || le.col != tc.col {
				t.Errorf("parse(%q): %v at col %d (%s), want %v at col %d", tc.line, le.err, le.col, le.msg, tc.err, tc.col)
			}
			if tc.err == ErrSyntax && strings.HasPrefix(tc.line, "{") && json.Valid([]byte(tc.line)) {
				t.Errorf("encoding/json accepts %q", tc.line)
			}
		})
	}
}
