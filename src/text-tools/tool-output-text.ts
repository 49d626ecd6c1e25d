import type { LanguageModelV4ToolResultOutput } from '@ai-sdk/provider';
import type { ToolResultText } from './tool-protocol-syntax.js';

/**
 * A tool result's output as the text a model reads, and whether it is an error.
 *
 * @example
 * toolOutputText({ type: 'json', value: { celsius: 4 } })  // { isError: false, text: '{"celsius":4}' }
 * toolOutputText({ type: 'error-text', value: 'boom' })    // { isError: true, text: 'boom' }
 */
export function toolOutputText(output: LanguageModelV4ToolResultOutput): ToolResultText {
  switch (output.type) {
    case 'text':
      return { isError: false, text: output.value };
    case 'json':
      return { isError: false, text: JSON.stringify(output.value) };
    case 'error-text':
      return { isError: true, text: output.value };
    case 'error-json':
      return { isError: true, text: JSON.stringify(output.value) };
    case 'execution-denied':
      return { isError: true, text: `Tool execution denied${output.reason ? `: ${output.reason}` : '.'}` };
    case 'content':
      return {
        isError: false,
        text: output.value
          .map((part) => {
            if (part.type === 'text') return part.text;
            if (part.type === 'file') return `[file${part.filename ? ` ${part.filename}` : ''} (${part.mediaType}) not shown]`;
            return '';
          })
          .filter((text) => text !== '')
          .join('\n'),
      };
  }
}
