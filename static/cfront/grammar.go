package cfront

import (
	"sync"

	sitter "github.com/smacker/go-tree-sitter"
)

// kind is a grammar node type the front-end distinguishes. Node types of
// no interest map to kOther; anonymous tokens (punctuation, operators,
// keywords) map to kToken.
type kind uint8

const (
	kOther kind = iota
	kToken
	kError

	// File structure.
	kTranslationUnit
	kFunctionDefinition
	kDeclaration
	kTypeDefinition
	kLinkageSpecification
	kDeclarationList
	kNamespaceDefinition
	kTemplateDeclaration
	kClassSpecifier
	kStructSpecifier
	kUnionSpecifier
	kEnumSpecifier
	kEnumeratorList
	kEnumerator
	kFieldDeclarationList
	kFieldDeclaration

	// Preprocessor.
	kPreprocDef
	kPreprocFunctionDef
	kPreprocIf
	kPreprocIfdef
	kPreprocElse
	kPreprocElif
	kPreprocElifdef

	// Declarators and types.
	kIdentifier
	kFieldIdentifier
	kTypeIdentifier
	kNamespaceIdentifier
	kQualifiedIdentifier
	kDestructorName
	kOperatorName
	kFunctionDeclarator
	kPointerDeclarator
	kAbstractPointerDeclarator
	kArrayDeclarator
	kAbstractArrayDeclarator
	kInitDeclarator
	kReferenceDeclarator
	kAbstractReferenceDeclarator
	kParenthesizedDeclarator
	kAttributedDeclarator
	kParameterList
	kParameterDeclaration
	kOptionalParameterDeclaration
	kVariadicParameter
	kPrimitiveType
	kSizedTypeSpecifier
	kTypeDescriptor
	kTypeQualifier
	kStorageClassSpecifier
	kPlaceholderTypeSpecifier
	kTemplateType
	kTemplateFunction
	kTemplateMethod

	// Statements.
	kCompoundStatement
	kExpressionStatement
	kIfStatement
	kElseClause
	kConditionClause
	kForStatement
	kForRangeLoop
	kWhileStatement
	kDoStatement
	kSwitchStatement
	kCaseStatement
	kReturnStatement
	kBreakStatement
	kContinueStatement
	kGotoStatement
	kLabeledStatement
	kAttributedStatement
	kTryStatement
	kCatchClause
	kThrowStatement

	// Expressions.
	kCallExpression
	kArgumentList
	kAssignmentExpression
	kUpdateExpression
	kBinaryExpression
	kUnaryExpression
	kPointerExpression
	kParenthesizedExpression
	kConditionalExpression
	kCastExpression
	kSizeofExpression
	kFieldExpression
	kSubscriptExpression
	kSubscriptArgumentList
	kCommaExpression
	kNumberLiteral
	kCharLiteral
	kStringLiteral
	kRawStringLiteral
	kConcatenatedString
	kStringContent
	kEscapeSequence
	kRawStringContent
	kCharacter
	kTrue
	kFalse
	kNull
	kThis
	kNewExpression
	kNewDeclarator
	kDeleteExpression
	kLambdaExpression
	kInitializerList
	kInitializerPair
	kFieldInitializerList
	kFieldInitializer
	kOffsetofExpression
	kNamespaceAliasDefinition

	numKinds
)

// kindNames names the grammar node types of each kind; both grammars use
// the same names.
var kindNames = [numKinds]string{
	kTranslationUnit:              "translation_unit",
	kFunctionDefinition:           "function_definition",
	kDeclaration:                  "declaration",
	kTypeDefinition:               "type_definition",
	kLinkageSpecification:         "linkage_specification",
	kDeclarationList:              "declaration_list",
	kNamespaceDefinition:          "namespace_definition",
	kTemplateDeclaration:          "template_declaration",
	kClassSpecifier:               "class_specifier",
	kStructSpecifier:              "struct_specifier",
	kUnionSpecifier:               "union_specifier",
	kEnumSpecifier:                "enum_specifier",
	kEnumeratorList:               "enumerator_list",
	kEnumerator:                   "enumerator",
	kFieldDeclarationList:         "field_declaration_list",
	kFieldDeclaration:             "field_declaration",
	kPreprocDef:                   "preproc_def",
	kPreprocFunctionDef:           "preproc_function_def",
	kPreprocIf:                    "preproc_if",
	kPreprocIfdef:                 "preproc_ifdef",
	kPreprocElse:                  "preproc_else",
	kPreprocElif:                  "preproc_elif",
	kPreprocElifdef:               "preproc_elifdef",
	kIdentifier:                   "identifier",
	kFieldIdentifier:              "field_identifier",
	kTypeIdentifier:               "type_identifier",
	kNamespaceIdentifier:          "namespace_identifier",
	kQualifiedIdentifier:          "qualified_identifier",
	kDestructorName:               "destructor_name",
	kOperatorName:                 "operator_name",
	kFunctionDeclarator:           "function_declarator",
	kPointerDeclarator:            "pointer_declarator",
	kAbstractPointerDeclarator:    "abstract_pointer_declarator",
	kArrayDeclarator:              "array_declarator",
	kAbstractArrayDeclarator:      "abstract_array_declarator",
	kInitDeclarator:               "init_declarator",
	kReferenceDeclarator:          "reference_declarator",
	kAbstractReferenceDeclarator:  "abstract_reference_declarator",
	kParenthesizedDeclarator:      "parenthesized_declarator",
	kAttributedDeclarator:         "attributed_declarator",
	kParameterList:                "parameter_list",
	kParameterDeclaration:         "parameter_declaration",
	kOptionalParameterDeclaration: "optional_parameter_declaration",
	kVariadicParameter:            "variadic_parameter",
	kPrimitiveType:                "primitive_type",
	kSizedTypeSpecifier:           "sized_type_specifier",
	kTypeDescriptor:               "type_descriptor",
	kTypeQualifier:                "type_qualifier",
	kStorageClassSpecifier:        "storage_class_specifier",
	kPlaceholderTypeSpecifier:     "placeholder_type_specifier",
	kTemplateType:                 "template_type",
	kTemplateFunction:             "template_function",
	kTemplateMethod:               "template_method",
	kCompoundStatement:            "compound_statement",
	kExpressionStatement:          "expression_statement",
	kIfStatement:                  "if_statement",
	kElseClause:                   "else_clause",
	kConditionClause:              "condition_clause",
	kForStatement:                 "for_statement",
	kForRangeLoop:                 "for_range_loop",
	kWhileStatement:               "while_statement",
	kDoStatement:                  "do_statement",
	kSwitchStatement:              "switch_statement",
	kCaseStatement:                "case_statement",
	kReturnStatement:              "return_statement",
	kBreakStatement:               "break_statement",
	kContinueStatement:            "continue_statement",
	kGotoStatement:                "goto_statement",
	kLabeledStatement:             "labeled_statement",
	kAttributedStatement:          "attributed_statement",
	kTryStatement:                 "try_statement",
	kCatchClause:                  "catch_clause",
	kThrowStatement:               "throw_statement",
	kCallExpression:               "call_expression",
	kArgumentList:                 "argument_list",
	kAssignmentExpression:         "assignment_expression",
	kUpdateExpression:             "update_expression",
	kBinaryExpression:             "binary_expression",
	kUnaryExpression:              "unary_expression",
	kPointerExpression:            "pointer_expression",
	kParenthesizedExpression:      "parenthesized_expression",
	kConditionalExpression:        "conditional_expression",
	kCastExpression:               "cast_expression",
	kSizeofExpression:             "sizeof_expression",
	kFieldExpression:              "field_expression",
	kSubscriptExpression:          "subscript_expression",
	kSubscriptArgumentList:        "subscript_argument_list",
	kCommaExpression:              "comma_expression",
	kNumberLiteral:                "number_literal",
	kCharLiteral:                  "char_literal",
	kStringLiteral:                "string_literal",
	kRawStringLiteral:             "raw_string_literal",
	kConcatenatedString:           "concatenated_string",
	kStringContent:                "string_content",
	kEscapeSequence:               "escape_sequence",
	kRawStringContent:             "raw_string_content",
	kCharacter:                    "character",
	kTrue:                         "true",
	kFalse:                        "false",
	kNull:                         "null",
	kThis:                         "this",
	kNewExpression:                "new_expression",
	kNewDeclarator:                "new_declarator",
	kDeleteExpression:             "delete_expression",
	kLambdaExpression:             "lambda_expression",
	kInitializerList:              "initializer_list",
	kInitializerPair:              "initializer_pair",
	kFieldInitializerList:         "field_initializer_list",
	kFieldInitializer:             "field_initializer",
	kOffsetofExpression:           "offsetof_expression",
	kNamespaceAliasDefinition:     "namespace_alias_definition",
}

// field is a grammar field name the front-end reads.
type field uint8

const (
	fNone field = iota
	fAlternative
	fArgument
	fArguments
	fBody
	fCondition
	fConsequence
	fDeclarator
	fField
	fFunction
	fIndex
	fIndices
	fInitializer
	fLabel
	fLeft
	fLength
	fMember
	fName
	fOperator
	fParameters
	fRight
	fScope
	fSize
	fType
	fUpdate
	fValue
	numFields
)

var fieldNames = [numFields]string{
	fAlternative: "alternative",
	fArgument:    "argument",
	fArguments:   "arguments",
	fBody:        "body",
	fCondition:   "condition",
	fConsequence: "consequence",
	fDeclarator:  "declarator",
	fField:       "field",
	fFunction:    "function",
	fIndex:       "index",
	fIndices:     "indices",
	fInitializer: "initializer",
	fLabel:       "label",
	fLeft:        "left",
	fLength:      "length",
	fMember:      "member",
	fName:        "name",
	fOperator:    "operator",
	fParameters:  "parameters",
	fRight:       "right",
	fScope:       "scope",
	fSize:        "size",
	fType:        "type",
	fUpdate:      "update",
	fValue:       "value",
}

// grammar translates one language's symbol and field ids into kinds and
// fields. It is built once per language and never modified.
type grammar struct {
	kinds  []kind   // by symbol id
	names  []string // symbol names, by symbol id
	fields []field  // by field id
}

// maxFieldID bounds the field ids probed in a language.
const maxFieldID = 255

func newGrammar(lang *sitter.Language) *grammar {
	byName := make(map[string]kind, numKinds)
	for k, name := range kindNames {
		if name != "" {
			byName[name] = kind(k)
		}
	}
	n := lang.SymbolCount()
	g := &grammar{kinds: make([]kind, n), names: make([]string, n)}
	for s := uint32(0); s < n; s++ {
		sym := sitter.Symbol(s)
		g.names[s] = lang.SymbolName(sym)
		switch {
		case lang.SymbolType(sym) != sitter.SymbolTypeRegular:
			g.kinds[s] = kToken
		default:
			g.kinds[s] = byName[g.names[s]]
		}
	}
	fieldByName := make(map[string]field, numFields)
	for f, name := range fieldNames {
		if name != "" {
			fieldByName[name] = field(f)
		}
	}
	g.fields = make([]field, maxFieldID+1)
	for id := 1; id <= maxFieldID; id++ {
		name := lang.FieldName(id)
		if name == "" {
			g.fields = g.fields[:id]
			break
		}
		g.fields[id] = fieldByName[name]
	}
	return g
}

// grammars holds the lazily built grammar tables of C and C++.
var grammars = [2]func() *grammar{
	sync.OnceValue(func() *grammar { return newGrammar(language(false)) }),
	sync.OnceValue(func() *grammar { return newGrammar(language(true)) }),
}

func grammarOf(isCPP bool) *grammar {
	if isCPP {
		return grammars[1]()
	}
	return grammars[0]()
}
