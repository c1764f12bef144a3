'use client';

import { useState } from 'react';
import { DefinitionEditor } from './action-definition-editor';
import { documentText, EMPTY_DEFINITION, EXAMPLE_DEFINITION } from './action-examples';
import { Button } from './ui/button';

const STARTS = {
  example: { label: 'Start from the example', document: EXAMPLE_DEFINITION },
  empty: { label: 'Start from an empty document', document: EMPTY_DEFINITION },
} as const;

/** An admin's new action: a draft from the example or from every required key left empty, planned then published. */
export function NewActionEditor() {
  const [start, setStart] = useState<keyof typeof STARTS>('example');
  return (
    <div className="space-y-3">
      <div className="flex flex-wrap gap-2" role="group" aria-label="Start the draft from">
        {(Object.keys(STARTS) as (keyof typeof STARTS)[]).map((key) => (
          <Button
            key={key}
            size="chip"
            aria-pressed={start === key}
            data-testid={`definition-start-${key}`}
            onClick={() => setStart(key)}
          >
            {STARTS[key].label}
          </Button>
        ))}
      </div>
      {/* A new start is a new draft: the editor's plan and note belong to the old one. */}
      <DefinitionEditor key={start} initial={documentText(STARTS[start].document)} label="New action definition" />
    </div>
  );
}
