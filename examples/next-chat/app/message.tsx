import { getToolName, isToolUIPart, type UIMessage } from 'ai';
import { ToolCall } from './tool-call';

/** One message: its text as it streams, and each command the agent ran. */
export function Message({ message }: { message: UIMessage }) {
  return (
    <article className={`message ${message.role}`} data-role={message.role}>
      <div className="who">{message.role === 'user' ? 'You' : 'Agent'}</div>
      <div className="body">
        {message.parts.map((part, index) => {
          if (part.type === 'text') {
            return (
              <p key={index} className="text">
                {part.text}
              </p>
            );
          }
          if (isToolUIPart(part))
            return <ToolCall key={part.toolCallId} name={getToolName(part)} part={part} />;
          return null;
        })}
      </div>
    </article>
  );
}
